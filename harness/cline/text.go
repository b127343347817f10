package cline

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/internal/jsonscan"
)

// wrappers are the tags the extensions put around what the user typed:
// <task> round the first prompt, <feedback> round a reply to a finished
// task or a refused tool call, <answer> round the answer to a question,
// <user_message> round new instructions when a task resumes or a plan is
// answered.
var wrappers = []string{"task", "user_message", "feedback", "answer"}

// nearHeader is how far after a tool result's header a wrapper may open
// and still be the user's reply rather than a file's or command's output
// that happens to hold the tag: the replies follow the header at once or
// after one sentence.
const nearHeader = 400

// maxHeader bounds the search for a tool result's header line.
const maxHeader = 8 << 10

// typed returns what the user typed in one text block of a task folder's
// user message, "" when the block holds none: environment details, a tool
// result, a reminder the extension added.
func typed(text string) string {
	t := strings.TrimSpace(text)
	switch {
	case t == "", strings.HasPrefix(t, "<environment_details>"):
		return ""
	case strings.HasPrefix(t, "[TASK RESUMPTION]"):
		// The old input is repeated in <previous_message>; the new one is
		// in <user_message>.
		return wrapped(t, "user_message", len(t))
	}
	if _, _, ok := toolHeader(t); ok {
		end := strings.Index(t, "] Result:") + len("] Result:")
		return typedResult(t[end:])
	}
	return firstWrapped(t, 1)
}

// lateFeedback leads the user's feedback on a command still running,
// which follows the command's output however long it is.
const lateFeedback = "The user provided the following feedback:\n<feedback>"

// typedResult returns what the user typed in a tool's result (the text
// after a header, or of a tool_result block of Roo Code's native tool
// calls): a wrapper near its start, or feedback after a running command's
// output.
func typedResult(text string) string {
	text = strings.TrimSpace(text)
	if s := firstWrapped(text, nearHeader); s != "" {
		return s
	}
	if at := strings.LastIndex(text, lateFeedback); at >= 0 {
		return wrapped(text[at:], "feedback", len(text))
	}
	return ""
}

// firstWrapped returns the inside of the first wrapper that opens within
// the first within bytes of s.
func firstWrapped(s string, within int) string {
	best, bestAt := "", -1
	for _, tag := range wrappers {
		at := strings.Index(s, "<"+tag+">")
		if at < 0 || at >= within || (bestAt >= 0 && at > bestAt) {
			continue
		}
		best, bestAt = tag, at
	}
	if bestAt < 0 {
		return ""
	}
	return wrapped(s[bestAt:], best, len(s))
}

// wrapped returns the inside of <tag>…</tag> starting at or after the
// first <tag> in s within limit bytes, up to the last closing tag before
// any @-mentioned file's content (the text may quote the tag itself), or
// to the end when it is not closed.
func wrapped(s, tag string, limit int) string {
	open := "<" + tag + ">"
	at := strings.Index(s, open)
	if at < 0 || at > limit {
		return ""
	}
	inner := s[at+len(open):]
	// Files the user @-mentioned follow the closing tag; their content
	// may quote the tag, so the search stops at the first of them.
	region := inner
	if f := strings.Index(region, "<file_content path="); f >= 0 {
		region = region[:f]
	}
	if end := strings.LastIndex(region, "</"+tag+">"); end >= 0 {
		inner = inner[:end]
	} else if end := strings.LastIndex(inner, "</"+tag+">"); end >= 0 {
		inner = inner[:end]
	}
	return strings.TrimSpace(stripEnvironment(inner))
}

// toolHeader reads the header the extension writes before a tool's output
// in a user text block, "[read_file for 'a.go'] Result:" or
// "[attempt_completion] Result:": the tool's name and the quoted value.
func toolHeader(t string) (name, value string, ok bool) {
	if !strings.HasPrefix(t, "[") {
		return "", "", false
	}
	end := strings.Index(t[:min(len(t), maxHeader)], "] Result:")
	if end < 0 {
		return "", "", false
	}
	head := t[1:end]
	name, value, _ = strings.Cut(head, " for '")
	for i := 0; i < len(name); i++ {
		if c := name[i]; !(c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			return "", "", false
		}
	}
	return name, strings.TrimSuffix(value, "'"), name != ""
}

// The kinds of tool a record is made from.
const (
	toolOther = iota
	toolRead
	toolEdit
	toolCommand
	toolPatch
)

// toolKind classifies a tool by name across Cline's extension, Roo Code,
// Kilo Code and the Cline SDK.
func toolKind(name string) int {
	switch name {
	case "read_file", "read_files", "readFile":
		return toolRead
	case "write_to_file", "replace_in_file", "apply_diff", "insert_content", "search_and_replace",
		"edit_file", "editor", "new_file", "write_file", "search_replace", "multi_edit", "edit":
		return toolEdit
	case "execute_command", "run_commands", "run_command", "bash":
		return toolCommand
	case "apply_patch":
		return toolPatch
	}
	return toolOther
}

// headerRecord makes a record from a tool result's header, for histories
// of the era that wrote tool calls as XML in the assistant's text.
func headerRecord(name, value string) (harness.Record, bool) {
	switch toolKind(name) {
	case toolRead:
		return harness.Record{Kind: harness.FileRecord, Value: value, Action: harness.Read}, value != ""
	case toolEdit:
		return harness.Record{Kind: harness.FileRecord, Value: value, Action: harness.Edited}, value != ""
	case toolCommand:
		return harness.Record{Kind: harness.CommandRecord, Value: value}, value != ""
	}
	return harness.Record{}, false
}

// toolRecords adds the records of one tool_use block; an edit's records
// carry the text it replaced and wrote (see spans).
func (p *parser) toolRecords(name string, input []byte, line int) {
	kind := toolKind(name)
	if kind == toolOther {
		return
	}
	turn := p.turn - 1
	in := fields(input, "command", "commands", "patch", "input",
		"path", "absolutePath", "file_path", "filePath", "files", "file_paths", "paths")
	switch kind {
	case toolCommand:
		for _, c := range append(in["command"], in["commands"]...) {
			p.record(harness.CommandRecord, c, "", turn, line)
		}
	case toolPatch:
		for _, s := range append(in["patch"], in["input"]...) {
			for _, f := range patchFiles(s) {
				p.record(harness.FileRecord, f, harness.Edited, turn, line)
			}
		}
	default:
		action := harness.Read
		if kind == toolEdit {
			action = harness.Edited
		}
		start := len(p.session.Records)
		seen := map[string]bool{}
		for _, key := range []string{"path", "absolutePath", "file_path", "filePath", "files", "file_paths", "paths"} {
			for _, f := range in[key] {
				if !seen[f] {
					seen[f] = true
					p.record(harness.FileRecord, f, action, turn, line)
				}
			}
		}
		// A span belongs to a call of one file; the records of a call that
		// names several keep none, which file each span is of being unsaid.
		if kind == toolEdit && len(p.session.Records) == start+1 {
			for i, sp := range spans(input) {
				if i == 0 {
					p.session.Records[start].Span = sp
					continue
				}
				r := p.session.Records[start]
				r.Span = sp
				p.session.Records = append(p.session.Records, r)
			}
		}
	}
}

// fields reads the named keys of a JSON object, each as the strings it
// holds: a string, an array of strings, or an array of objects whose
// "path" or "command" is a string. Other values are skipped.
func fields(raw []byte, keys ...string) map[string][]string {
	out := map[string][]string{}
	var sc jsonscan.Scanner
	sc.Reset(raw)
	sc.Object(func(key []byte) bool {
		k := string(key)
		wanted := false
		for _, w := range keys {
			wanted = wanted || w == k
		}
		if !wanted {
			return false
		}
		switch sc.Kind() {
		case '"':
			if v := sc.String(); v != "" {
				out[k] = append(out[k], v)
			}
		case '[':
			sc.Array(func() {
				switch sc.Kind() {
				case '"':
					out[k] = append(out[k], sc.String())
				case '{':
					sc.Object(func(sub []byte) bool {
						if string(sub) != "path" && string(sub) != "command" {
							return false
						}
						out[k] = append(out[k], sc.String())
						return true
					})
				default:
					sc.Skip()
				}
			})
		default:
			return false
		}
		return true
	})
	return out
}

// patchFiles lists the files an apply_patch envelope names.
func patchFiles(patch string) []string {
	var out []string
	for _, ln := range strings.Split(patch, "\n") {
		ln = strings.TrimSpace(ln)
		for _, mark := range []string{"*** Update File: ", "*** Add File: ", "*** Delete File: "} {
			if f, ok := strings.CutPrefix(ln, mark); ok {
				out = append(out, strings.TrimSpace(f))
			}
		}
	}
	return out
}

// stripThinking removes <thinking>…</thinking> spans, where the era of
// tool calls written as XML put the model's reasoning in its text.
func stripThinking(s string) string { return strip(s, "thinking") }

// stripEnvironment removes <environment_details>…</environment_details>.
func stripEnvironment(s string) string { return strip(s, "environment_details") }

func strip(s, tag string) string {
	open, close := "<"+tag+">", "</"+tag+">"
	for {
		at := strings.Index(s, open)
		if at < 0 {
			return s
		}
		end := strings.Index(s[at:], close)
		if end < 0 {
			return s[:at]
		}
		s = s[:at] + s[at+end+len(close):]
	}
}

// cwdMarks open the line of the environment details that names the
// directory the task runs in: Cline's and Roo Code's spellings.
var cwdMarks = [][]byte{[]byte("# Current Working Directory ("), []byte("# Current Workspace Directory (")}

// projectFromText finds the task's directory in the first environment
// details of a history's raw JSON: "# Current Working Directory (/x)".
func projectFromText(data []byte) string {
	best := -1
	var mark []byte
	for _, m := range cwdMarks {
		if at := bytes.Index(data, m); at >= 0 && (best < 0 || at < best) {
			best, mark = at, m
		}
	}
	if best < 0 {
		return ""
	}
	rest := data[best+len(mark):]
	end := bytes.IndexByte(rest[:min(len(rest), maxValue)], ')')
	if end <= 0 {
		return ""
	}
	var dir string
	if json.Unmarshal(append(append([]byte{'"'}, rest[:end]...), '"'), &dir) != nil {
		return ""
	}
	if !strings.HasPrefix(dir, "/") && !isWindowsAbs(dir) {
		return ""
	}
	return dir
}

// sdkInjected are the blocks the SDK runtime adds to a user message
// beside the typed text: a notice of the mode, an attached file's
// content, the environment details. sdkWrappers are the tags round the
// typed text: <user_input mode="act">, or <user_command slash="…"> for a
// slash command.
var (
	sdkInjected = []string{"mode_notice", "file_content", "environment_details"}
	sdkWrappers = []string{"user_input", "user_command"}
)

// sdkTyped returns what the user typed in a text block of an SDK user
// message, and the files attached in it (<file_content path="…">).
func sdkTyped(text string) (string, []string) {
	if strings.IndexByte(text, '<') < 0 {
		return strings.TrimSpace(text), nil
	}
	var files []string
	for _, tag := range sdkInjected {
		for {
			at, attrs, end := openTag(text, tag)
			if at < 0 {
				break
			}
			if tag == "file_content" {
				if f, ok := attr(attrs, "path"); ok {
					files = append(files, f)
				}
			}
			close := "</" + tag + ">"
			stop := strings.Index(text[end:], close)
			if stop < 0 {
				text = text[:at]
				break
			}
			text = text[:at] + text[end+stop+len(close):]
		}
	}
	for _, tag := range sdkWrappers {
		for {
			at, _, end := openTag(text, tag)
			if at < 0 {
				break
			}
			text = text[:at] + text[end:]
		}
		text = strings.ReplaceAll(text, "</"+tag+">", "")
	}
	return strings.TrimSpace(text), files
}

// openTag finds the first <tag> or <tag attrs…> in s: where it starts,
// its attributes, and where it ends; at is -1 when there is none.
func openTag(s, tag string) (at int, attrs string, end int) {
	from := 0
	for {
		i := strings.Index(s[from:], "<"+tag)
		if i < 0 {
			return -1, "", 0
		}
		i += from
		rest := s[i+1+len(tag):]
		if rest != "" && (rest[0] == '>' || rest[0] == ' ') {
			gt := strings.IndexByte(rest, '>')
			if gt < 0 {
				return -1, "", 0
			}
			return i, rest[:gt], i + 1 + len(tag) + gt + 1
		}
		from = i + 1
	}
}

// attr returns the value of name="…" in a tag's attributes, on one line.
func attr(attrs, name string) (string, bool) {
	_, v, ok := strings.Cut(attrs, name+`="`)
	if !ok {
		return "", false
	}
	v, _, ok = strings.Cut(v, `"`)
	return v, ok && v != "" && !strings.ContainsAny(v, "\n\r")
}

// spoken are the tools whose input the user reads as the assistant's
// words: the final result, a question, a plan mode reply; and the field
// that holds them.
var spoken = map[string]string{
	"attempt_completion":    "result",
	"ask_followup_question": "question",
	"plan_mode_respond":     "response",
}

// xmlTools are the tools of the era that wrote tool calls as XML in the
// assistant's text; their calls are cut from the prose, but for the words
// of a spoken tool.
var xmlTools = []string{
	"read_file", "write_to_file", "replace_in_file", "execute_command", "search_files", "list_files",
	"list_code_definition_names", "browser_action", "use_mcp_tool", "access_mcp_resource", "apply_diff",
	"insert_content", "search_and_replace", "new_task", "switch_mode", "fetch_instructions", "load_mcp_documentation",
	"attempt_completion", "ask_followup_question", "plan_mode_respond",
}

// prose returns an assistant text block's words: without <thinking>
// spans and without tool calls written as XML, a spoken tool's words kept.
func prose(text string) string {
	text = stripThinking(text)
	if strings.IndexByte(text, '<') < 0 {
		return strings.TrimSpace(text)
	}
	for _, tool := range xmlTools {
		open, close := "<"+tool+">", "</"+tool+">"
		for {
			at := strings.Index(text, open)
			if at < 0 {
				break
			}
			end := strings.Index(text[at:], close)
			body := text[at+len(open):]
			rest := ""
			if end >= 0 {
				body = text[at+len(open) : at+end]
				rest = text[at+end+len(close):]
			}
			said := ""
			if field, ok := spoken[tool]; ok {
				said = wrapped(body, field, len(body))
			}
			text = text[:at] + said + rest
		}
	}
	return strings.TrimSpace(text)
}

// mentioned lists the files whose content the extension appended to a
// prompt for an @-mention: <file_content path="…"> blocks after it.
func mentioned(text string) []string {
	var files []string
	for len(files) < 1000 {
		at, attrs, end := openTag(text, "file_content")
		if at < 0 {
			break
		}
		if f, ok := attr(attrs, "path"); ok {
			files = append(files, f)
		}
		text = text[end:]
	}
	return files
}
