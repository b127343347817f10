package memory

import (
	"path/filepath"
	"strings"
	"time"
)

// Scope narrows recall to part of the store. The zero Scope is everything.
type Scope struct {
	// Project is a project directory; sessions of histories in it or in a
	// directory below it match.
	Project string
	// Session is one session ID.
	Session string
	// Since and Until bound the session start time; sessions with an
	// unknown start match neither bound.
	Since, Until time.Time
	// Harness, when set, keeps the sessions of that harness alone.
	Harness string
	// Subagents includes sessions a subagent ran (Claude Code sidechains,
	// Codex exec runs), which recall leaves out by default so they do not
	// flood it. A Session scope always includes its session.
	Subagents bool
}

// filtered reports whether the scope narrows anything beyond leaving
// subagent sessions out.
func (sc Scope) filtered() bool {
	return sc.Project != "" || sc.Session != "" || !sc.Since.IsZero() || !sc.Until.IsZero() || sc.Harness != ""
}

// excludesSubagents reports whether subagent sessions are out of scope.
func (sc Scope) excludesSubagents() bool { return !sc.Subagents && sc.Session == "" }

// sql returns a WHERE fragment over sessions aliased s, and its arguments.
func (sc Scope) sql() (string, []any) {
	var conds []string
	var args []any
	if sc.Project != "" {
		p := filepath.Clean(sc.Project)
		conds = append(conds, `(s.project = ? OR substr(s.project, 1, ?) = ?)`)
		prefix := strings.TrimSuffix(p, string(filepath.Separator)) + string(filepath.Separator)
		args = append(args, p, len(prefix), prefix)
	}
	if sc.Session != "" {
		conds = append(conds, `s.id = ?`)
		args = append(args, sc.Session)
	}
	if !sc.Since.IsZero() {
		conds = append(conds, `s.started_ns >= ?`)
		args = append(args, sc.Since.UnixNano())
	}
	if !sc.Until.IsZero() {
		conds = append(conds, `s.started_ns < ?`)
		args = append(args, sc.Until.UnixNano())
	}
	if sc.Harness != "" {
		conds = append(conds, `s.harness = ?`)
		args = append(args, sc.Harness)
	}
	if sc.excludesSubagents() {
		conds = append(conds, `s.subagent = 0`)
	}
	if len(conds) == 0 {
		return "1", nil
	}
	return strings.Join(conds, " AND "), args
}

// matchesProject reports whether project is sc's project or below it.
func (sc Scope) matchesProject(project string) bool {
	if sc.Project == "" {
		return true
	}
	p := filepath.Clean(sc.Project)
	return project == p || strings.HasPrefix(project, strings.TrimSuffix(p, string(filepath.Separator))+string(filepath.Separator))
}
