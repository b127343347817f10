package gemini

import (
	"path"
	"path/filepath"
	"strings"

	"github.com/deja-dev/deja/harness"
)

// The tools whose calls become records, by the names Gemini CLI records
// (FORMATS.md §3.3: replace and write_file edit, read_file reads,
// run_shell_command runs a command; edit and read_many_files are the
// names of the same tools in other releases).
var (
	editTools  = map[string]bool{"replace": true, "write_file": true, "edit": true}
	readTools  = map[string]bool{"read_file": true, "read_many_files": true}
	shellTools = map[string]bool{"run_shell_command": true}
)

// callRecords returns the records one tool call yields. A file call that
// failed or was cancelled touched nothing (a denied write, a missing file:
// TP-Tutor session-2026-04-25T05-22), so it yields none; a command is
// recorded whatever became of it, since a cancelled one ran.
func callRecords(c toolCall, project string) []harness.Record {
	switch {
	case shellTools[c.Name]:
		if cmd := strings.TrimSpace(c.Args.Command); cmd != "" {
			return []harness.Record{{Kind: harness.CommandRecord, Value: cmd, Outcome: c.Outcome}}
		}
	case editTools[c.Name], readTools[c.Name]:
		if c.Status == "error" || c.Status == "cancelled" {
			return nil
		}
		action := harness.Read
		if editTools[c.Name] {
			action = harness.Edited
		}
		var out []harness.Record
		for _, p := range c.files() {
			if p = relative(p, project); p != "" {
				r := harness.Record{Kind: harness.FileRecord, Value: p, Action: action}
				if action == harness.Edited {
					r.Outcome, r.Span = c.Outcome, c.Span
				}
				out = append(out, r)
			}
		}
		return out
	}
	return nil
}

// files lists the paths a file tool names: file_path (absolute_path in
// older releases, path in some), or read_many_files' paths.
func (c toolCall) files() []string {
	for _, p := range []string{c.Args.FilePath, c.Args.AbsolutePath, c.Args.Path} {
		if strings.TrimSpace(p) != "" {
			return []string{p}
		}
	}
	return c.Args.Paths
}

// relative writes p relative to the project when it lies under it; the
// CLI takes relative paths from the project root, so they stay as they
// are, cleaned.
func relative(p, project string) string {
	p = strings.TrimSpace(p)
	if p == "" {
		return ""
	}
	if project != "" && filepath.IsAbs(p) {
		if rel, err := filepath.Rel(project, p); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
			return filepath.ToSlash(rel)
		}
		return p
	}
	if strings.Contains(p, "./") || strings.Contains(p, "//") {
		return path.Clean(p)
	}
	return p
}
