package copilot

import (
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
		return harness.Record{Kind: harness.FileRecord, Value: path, Action: action}, path != ""
	}
	return harness.Record{}, false
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
