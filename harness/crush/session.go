package crush

import (
	"strconv"
	"strings"
	"time"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/internal/jsonscan"
)

// The tools whose calls become records, by name (internal/agent/tools):
// bash runs a command; edit, multiedit, write, download and
// lsp_replace_symbol change a file; view reads one. ls, glob, grep and the
// fetches name directories, patterns and URLs, not files touched.
var (
	editTools = map[string]bool{"edit": true, "multiedit": true, "write": true, "download": true, "lsp_replace_symbol": true}
	readTools = map[string]bool{"view": true}
)

// knownParts are the part types of marshalParts; others are a newer
// release's, skipped and counted.
var knownParts = map[string]bool{
	"text": true, "reasoning": true, "image_url": true, "binary": true,
	"tool_call": true, "tool_result": true, "finish": true, "shell_command": true,
}

// call is a tool call's records, n of them from at in the session's
// records, waiting for the tool_result that ends it.
type call struct {
	tool  string
	at, n int
	// edits are the index, among a multiedit's edits, of each of its
	// records, in order.
	edits []int
}

// buildSession turns one session and its messages, in order, into the
// neutral shape. A message's Line is its 1-based position in the session:
// a store has no lines.
func buildSession(id string, r sessionRow, project string, msgs []message, skip skipped) harness.Session {
	s := harness.Session{ID: id, Project: project, Marker: r.Marker, Started: unixTime(r.Created)}
	if r.Parent != "" {
		// A parent of no shape ValidID takes is left to CheckIDs, which
		// drops the link and says so.
		s.Parent, s.Subagent = IDPrefix+strings.Replace(r.Parent, "$$", ".", 1), true
	}
	turn := -1
	pending := map[string]call{}
	var sc jsonscan.Scanner
	for i, m := range msgs {
		line := i + 1
		when := unixTime(m.Created)
		if s.Started.IsZero() {
			s.Started = when
		}
		if m.Summary {
			// The summary Crush writes when it compacts a session
			// (Summarize in internal/agent/agent.go) retells the
			// messages above it, which are kept.
			continue
		}
		var texts []string
		var parts []part
		ok := decodeParts(&sc, m.Parts, func(p part) {
			if !knownParts[p.Type] {
				skip.add("parts of unknown type " + harness.Quoted(p.Type))
				return
			}
			if p.Type == "text" && strings.TrimSpace(p.Text) != "" {
				texts = append(texts, strings.TrimSpace(p.Text))
			}
			parts = append(parts, p)
		})
		if !ok {
			// What came before the damage is kept: a prompt's text
			// parts are read in order.
			skip.add("messages whose parts are not a JSON array")
		}
		text := strings.Join(texts, "\n\n")
		switch m.Role {
		case "user":
			if text != "" {
				turn++
				s.Messages = append(s.Messages, harness.Message{Role: harness.User, Text: text, Turn: turn, Line: line, Time: when})
			}
		case "assistant":
			if text != "" {
				s.Messages = append(s.Messages, harness.Message{Role: harness.Assistant, Text: text, Turn: turn, Line: line, Time: when})
			}
		}
		for _, p := range parts {
			switch {
			case p.Type == "shell_command" && m.Role == "user":
				if cmd := strings.TrimSpace(p.Command); cmd != "" {
					exit := int(p.Exit)
					s.Records = append(s.Records, harness.Record{Kind: harness.CommandRecord, Value: cmd, Turn: turn, Line: line,
						Outcome: harness.Outcome{Status: harness.StatusOfExit(exit), Exit: harness.ExitStatus(exit), Output: harness.ClipOutput(p.Output)}})
				}
			case p.Type == "tool_call" && m.Role == "assistant":
				c := callRecords(&s, p, project, turn, line)
				if c.n > 0 && p.CallID != "" {
					pending[p.CallID] = c
				}
			case p.Type == "tool_result":
				if c, ok := pending[p.ResultOf]; ok {
					delete(pending, p.ResultOf)
					endCall(s.Records[c.at:c.at+c.n], c, p)
				}
			}
		}
	}
	s.Records = keptRecords(s.Records)
	return s
}

// keptRecords drops the reads that failed (a file not there, which the
// view touched not at all), marked by an empty value, and a file's second
// read in a turn: a read has no outcome to tell the two apart.
func keptRecords(recs []harness.Record) []harness.Record {
	type read struct {
		turn  int
		value string
	}
	seen := map[read]bool{}
	out := recs[:0]
	for _, r := range recs {
		if r.Value == "" {
			continue
		}
		if r.Action == harness.Read {
			k := read{r.Turn, r.Value}
			if seen[k] {
				continue
			}
			seen[k] = true
		}
		out = append(out, r)
	}
	return out
}

// callRecords appends the records of one tool call to s and returns
// them as a call. An edit's text is its span until its result says
// otherwise.
func callRecords(s *harness.Session, p part, project string, turn, line int) call {
	c := call{tool: p.Tool, at: len(s.Records)}
	if p.Tool != "bash" && !editTools[p.Tool] && !readTools[p.Tool] {
		return c
	}
	in, ok := decodeInput(p.Input)
	if !ok {
		return c
	}
	add := func(r harness.Record) {
		r.Turn, r.Line = turn, line
		s.Records = append(s.Records, r)
		c.n++
	}
	switch {
	case p.Tool == "bash":
		if cmd := strings.TrimSpace(in.Command); cmd != "" {
			add(harness.Record{Kind: harness.CommandRecord, Value: cmd})
		}
		return c
	}
	v := harness.RelPath(project, in.FilePath)
	if v == "" {
		return c
	}
	if readTools[p.Tool] {
		add(harness.Record{Kind: harness.FileRecord, Value: v, Action: harness.Read})
		return c
	}
	r := harness.Record{Kind: harness.FileRecord, Value: v, Action: harness.Edited}
	switch p.Tool {
	case "edit":
		if in.HasEdit {
			r.Span = replacement(in.Old, in.New)
		}
	case "write":
		text, cut := harness.ClipSpan(in.Content)
		r.Span = harness.Span{New: text, Whole: true, Clipped: cut}
	case "multiedit":
		for i, e := range in.Edits {
			r.Span = replacement(e[0], e[1])
			add(r)
			c.edits = append(c.edits, i)
		}
		if len(in.Edits) > 0 {
			return c
		}
	}
	add(r)
	return c
}

// replacement is the span of one old_string/new_string pair.
func replacement(old, new string) harness.Span {
	o, cutOld := harness.ClipSpan(old)
	n, cutNew := harness.ClipSpan(new)
	return harness.Span{Old: o, New: n, Clipped: cutOld || cutNew}
}

// endCall sets the outcome of a call's records from its tool_result,
// whose is_error says the tool refused or failed (an edit whose
// old_string is not in the file, a command refused, a file not there to
// view). A failed edit keeps its record, marked failed and without its
// text; a failed read is dropped (keptRecords); a read has no outcome.
func endCall(recs []harness.Record, c call, res part) {
	if readTools[c.tool] {
		if res.IsError {
			recs[0].Value = ""
		}
		return
	}
	meta := decodeMeta(res.Metadata)
	if c.tool == "bash" {
		recs[0].Outcome = bashOutcome(res, meta)
		return
	}
	o := harness.Outcome{Status: harness.Succeeded}
	if res.IsError {
		o.Status = harness.Failed
	}
	for i := range recs {
		recs[i].Outcome = o
		if res.IsError {
			recs[i].Span = harness.Span{}
		}
	}
	for _, failed := range meta.FailedEdits {
		for i, e := range c.edits {
			if e == failed && i < len(recs) {
				recs[i].Outcome.Status, recs[i].Span = harness.Failed, harness.Span{}
			}
		}
	}
}

// bashOutcome reads a bash call's result (formatOutput in
// internal/agent/tools/bash.go): the command's output, then "Exit code N"
// on a line of its own when N is not 0, or "Command was aborted before
// completion", then "\n\n<cwd>dir</cwd>"; "no output" when it printed
// nothing. A command that ran to its end (its metadata has start_time)
// with no such line exited 0. A command moved to the background has no
// exit yet, and one the tool refused (is_error) ran not at all.
func bashOutcome(res part, meta resultMeta) harness.Outcome {
	if res.IsError {
		return harness.Outcome{Status: harness.Failed}
	}
	if meta.Background {
		return harness.Outcome{}
	}
	text := strings.TrimRight(jsonscan.Unescape(res.Content), " \t\r\n")
	if strings.HasSuffix(text, "</cwd>") {
		if i := strings.LastIndex(text, "<cwd>"); i >= 0 {
			text = strings.TrimRight(text[:i], " \t\r\n")
		}
	}
	var o harness.Outcome
	body, last := text, text
	if i := strings.LastIndexByte(text, '\n'); i >= 0 {
		body, last = text[:i], text[i+1:]
	} else {
		body = ""
	}
	switch {
	case strings.HasPrefix(last, "Exit code "):
		code, err := strconv.Atoi(strings.TrimPrefix(last, "Exit code "))
		if err != nil {
			body = text
			break
		}
		o.Status, o.Exit = harness.StatusOfExit(code), harness.ExitStatus(code)
	case last == "Command was aborted before completion":
		o.Status = harness.Failed
	default:
		body = text
		if meta.Ran {
			o.Status, o.Exit = harness.Succeeded, harness.ExitStatus(0)
		}
	}
	if body != "no output" {
		o.Output = harness.ClipOutput(body)
	}
	return o
}

// unixTime reads a time Crush wrote: seconds (strftime('%s', 'now') in
// every release seen) or milliseconds, as the schema's comments say,
// told apart by size: 1e11 seconds is the year 5138, 1e11 milliseconds
// 1973. Zero, negative and absurd values are no time.
func unixTime(v int64) time.Time {
	const maxMillis = 253402300799999 // 9999-12-31T23:59:59.999Z
	switch {
	case v <= 0 || v > maxMillis:
		return time.Time{}
	case v > 1e11:
		return time.UnixMilli(v).UTC()
	}
	return time.Unix(v, 0).UTC()
}
