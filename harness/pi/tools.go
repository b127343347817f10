package pi

import (
	"strings"

	"github.com/deja-dev/deja/harness"
)

// The tools whose calls become records, by the names the agents give
// them: pi's read, edit, write and bash (packages/coding-agent/src/core/
// tools), OpenClaw's exec for a shell command, and omp's edit and write
// under the same names. Listing tools (ls, find, grep) name folders and
// patterns, not files, and make no record.
var (
	editTools  = map[string]bool{"edit": true, "write": true}
	readTools  = map[string]bool{"read": true}
	shellTools = map[string]bool{"bash": true, "exec": true}
)

// records returns the records one tool call that ran yields (a call with
// no toolResult did not run: its message was aborted). A file call whose
// result was an error touched nothing (a missing file, a failed match),
// so it yields none; a command is recorded whatever became of it, since
// it ran.
func (c toolCall) records(cwd string, failed bool) []harness.Record {
	switch {
	case shellTools[c.name]:
		if cmd := strings.TrimSpace(c.args.command); cmd != "" {
			return []harness.Record{{Kind: harness.CommandRecord, Value: cmd}}
		}
	case editTools[c.name], readTools[c.name]:
		if failed {
			return nil
		}
		p := c.args.path
		if strings.TrimSpace(p) == "" {
			p = c.args.filePath
		}
		if p = harness.RelPath(cwd, p); p == "" || p == "." {
			return nil
		}
		action := harness.Read
		if editTools[c.name] {
			action = harness.Edited
		}
		return []harness.Record{{Kind: harness.FileRecord, Value: p, Action: action}}
	}
	return nil
}
