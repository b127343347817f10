package copilot

import (
	"strconv"
	"strings"

	"github.com/deja-dev/deja/harness"
)

// The tools whose calls become records, by the names Copilot CLI writes in
// tool.execution_start (FORMATS.md "GitHub Copilot CLI", tools): view reads
// a file, edit and create write one, bash (powershell on Windows) runs a
// command. glob and grep name patterns, not files, and leave none.
var (
	readTools  = map[string]bool{"view": true}
	editTools  = map[string]bool{"edit": true, "create": true}
	shellTools = map[string]bool{"bash": true, "powershell": true}
)

// toolRecord is the record one tool call gives, its file path as written.
func toolRecord(name string, a toolArgs) (harness.Record, bool) {
	switch {
	case shellTools[name]:
		cmd := strings.TrimSpace(text(a.Command))
		return harness.Record{Kind: harness.CommandRecord, Value: cmd}, cmd != ""
	case readTools[name], editTools[name]:
		path := strings.TrimSpace(text(a.Path))
		action := harness.Read
		if editTools[name] {
			action = harness.Edited
		}
		r := harness.Record{Kind: harness.FileRecord, Value: path, Action: action}
		switch {
		case name == "edit" && a.Replace:
			o, cutOld := harness.ClipSpan(text(a.OldStr))
			n, cutNew := harness.ClipSpan(text(a.NewStr))
			r.Span = harness.Span{Old: o, New: n, Clipped: cutOld || cutNew}
		case name == "create" && a.FileText != nil:
			n, cut := harness.ClipSpan(text(a.FileText))
			r.Span = harness.Span{New: n, Whole: true, Clipped: cut}
		}
		return r, path != ""
	}
	return harness.Record{}, false
}

// shellOutcome is how a command's call ended, from its completion: the
// exit status the CLI appends to the output as its last line, "<exited
// with exit code N>", with the output before it; failed, without an exit,
// when the call did not succeed and says no failing exit. A result
// without the exit line gives no exit and no status.
func shellOutcome(success bool, result []byte) harness.Outcome {
	var o harness.Outcome
	out := text(result)
	body, code, ok := exitLine(out)
	if ok {
		out = body
	}
	switch {
	case ok && (success || code != 0):
		o.Status, o.Exit = harness.StatusOfExit(code), harness.ExitStatus(code)
	case !success:
		o.Status = harness.Failed
	}
	o.Output = harness.ClipOutput(out)
	return o
}

// exitLine splits off the "<exited with exit code N>" line that ends a
// command's result.
func exitLine(s string) (string, int, bool) {
	s = strings.TrimRight(s, "\r\n ")
	const pre = "<exited with exit code "
	i := strings.LastIndex(s, pre)
	if i < 0 || !strings.HasSuffix(s, ">") || strings.ContainsAny(s[i:], "\n") {
		return "", 0, false
	}
	code, err := strconv.Atoi(s[i+len(pre) : len(s)-1])
	if err != nil {
		return "", 0, false
	}
	return s[:i], code, true
}

// known reports an event type deja reads or leaves alone on purpose; any
// other is counted in the warnings. Copilot CLI names its events by kind
// (session., assistant., tool., …) and adds types within those kinds from
// release to release, none of which carries what the user typed.
func known(typ string) bool {
	if typ == "abort" {
		return true
	}
	kind, _, ok := strings.Cut(typ, ".")
	if !ok {
		return false
	}
	switch kind {
	case "session", "assistant", "tool", "hook", "permission", "subagent", "system", "skill", "user":
		return true
	}
	return false
}
