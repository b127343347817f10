package codex

import (
	"bytes"
	"strings"

	"github.com/deja-dev/deja/harness"
	json "github.com/deja-dev/deja/internal/jsonlimit"
)

// shellArgs are the arguments of the shell tools across versions (§2.4):
// shell's argv array, shell_command's string, exec_command's cmd.
type shellArgs struct {
	Command json.RawMessage `json:"command"`
	Cmd     string          `json:"cmd"`
	Input   string          `json:"input"`
}

// toolRecords returns the records of one tool call: apply_patch's file
// headers as files edited, a shell call's command as a command. Other
// tools (update_plan, write_stdin polls, searches) leave none; tool names
// are not a closed list (§2.4: a model glitch named one shell<|channel|>).
func toolRecords(it item, cwd string) []harness.Record {
	if it.Type == "local_shell_call" {
		if it.Action == nil {
			return nil
		}
		return commandRecords(argvCommand(it.Action.Command), cwd)
	}
	switch it.Name {
	case "apply_patch":
		patch := stringOrRaw(it.Input)
		if it.Type == "function_call" {
			var a shellArgs
			json.Unmarshal(stringOrRaw(it.Arguments), &a)
			patch = []byte(a.Input)
		}
		return patchRecords(string(patch), cwd)
	case "shell", "container.exec", "shell_command", "exec_command", "local_shell":
	default:
		return nil
	}
	var a shellArgs
	if json.Unmarshal(stringOrRaw(it.Arguments), &a) != nil {
		return nil
	}
	cmd := a.Cmd
	if cmd == "" && len(a.Command) > 0 {
		var s string
		var argv []string
		switch {
		case json.Unmarshal(a.Command, &s) == nil:
			cmd = s
		case json.Unmarshal(a.Command, &argv) == nil:
			if len(argv) > 0 && argv[0] == "apply_patch" {
				// Early Codex ran apply_patch as a shell command.
				return patchRecords(strings.Join(argv[1:], "\n"), cwd)
			}
			cmd = argvCommand(argv)
		}
	}
	return commandRecords(cmd, cwd)
}

// argvCommand turns an argv into the command a user would type: the script
// of bash -lc "…", else the words joined.
func argvCommand(argv []string) string {
	if len(argv) == 3 && (argv[1] == "-lc" || argv[1] == "-c") {
		switch strings.TrimPrefix(argv[0], "/bin/") {
		case "bash", "sh", "zsh":
			return argv[2]
		}
	}
	return strings.Join(argv, " ")
}

// commandRecords is one command record, or the patch's files when the
// command feeds apply_patch a patch through a heredoc.
func commandRecords(cmd, cwd string) []harness.Record {
	cmd = strings.TrimSpace(cmd)
	if cmd == "" {
		return nil
	}
	if strings.Contains(cmd, "*** Begin Patch") && strings.Contains(cmd, "apply_patch") {
		return patchRecords(cmd, cwd)
	}
	return []harness.Record{{Kind: harness.CommandRecord, Value: cmd}}
}

// patchHeaders name the files a patch touches ("*** Add File: p").
var patchHeaders = []string{"*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: "}

// patchRecords returns a file edited per file the patch names, in order,
// and one more for each further hunk: a hunk's old text is its context and
// '-' lines, its new text its context and '+' lines; an added file's '+'
// lines are its whole content (codex-rs apply-patch/src/parser.rs).
func patchRecords(patch, cwd string) []harness.Record {
	var out []harness.Record
	seen := map[string]bool{}
	file := "" // the file the patch is changing
	open := -1 // its record still without a span, or -1
	whole := false
	var old, new []string
	flush := func() {
		if file != "" && (len(old) > 0 || len(new) > 0) {
			sp := harness.Span{Whole: whole}
			oc, nc := false, false
			if !whole {
				sp.Old, oc = harness.ClipSpan(strings.Join(old, "\n"))
			}
			text := strings.Join(new, "\n")
			if whole {
				text += "\n"
			}
			sp.New, nc = harness.ClipSpan(text)
			sp.Clipped = oc || nc
			if open >= 0 {
				out[open].Span = sp
				open = -1
			} else {
				out = append(out, harness.Record{Kind: harness.FileRecord, Value: file, Action: harness.Edited, Span: sp})
			}
		}
		old, new = old[:0], new[:0]
	}
	for _, line := range strings.Split(patch, "\n") {
		line = strings.TrimRight(line, "\r")
		if header, p, ok := patchHeader(line); ok {
			flush()
			p = harness.RelPath(cwd, p)
			file, whole, open = p, header == "*** Add File: ", -1
			if header == "*** Delete File: " {
				file = "" // nothing of its text is written
			}
			if p != "" && !seen[p] {
				seen[p] = true
				out = append(out, harness.Record{Kind: harness.FileRecord, Value: p, Action: harness.Edited})
				open = len(out) - 1
			}
			continue
		}
		switch {
		case line == "*** End Patch":
			flush()
			file = ""
		case strings.HasPrefix(line, "@@"):
			flush()
		case file == "" || line == "*** End of File":
		case whole:
			if t, ok := strings.CutPrefix(line, "+"); ok {
				new = append(new, t)
			}
		case line == "" || line[0] == ' ':
			old = append(old, strings.TrimPrefix(line, " "))
			new = append(new, strings.TrimPrefix(line, " "))
		case line[0] == '-':
			old = append(old, line[1:])
		case line[0] == '+':
			new = append(new, line[1:])
		}
	}
	flush()
	return out
}

// patchHeader returns the header a patch line starts with and the path it
// names.
func patchHeader(line string) (header, path string, ok bool) {
	for _, h := range patchHeaders {
		if p, ok := strings.CutPrefix(line, h); ok {
			return h, p, true
		}
	}
	return "", "", false
}

// stringOrRaw is the text of a JSON string, or the raw JSON of any other
// value: function-call arguments are JSON inside a string, but some items
// carry them as an object.
func stringOrRaw(raw json.RawMessage) []byte {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return []byte(s)
		}
	}
	return raw
}
