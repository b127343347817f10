package opencode

import (
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/deja-dev/deja/harness"
)

// IDPrefix starts every OpenCode session's ID: opencode-<session id>.
const IDPrefix = "opencode-"

// The tools whose calls become records (FORMATS.md §4.3; tool names are
// lower-case): edit, write and patch change files (multiedit and
// apply_patch in other releases), read reads one, bash runs a command.
var (
	editTools  = map[string]bool{"edit": true, "write": true, "patch": true, "multiedit": true, "apply_patch": true}
	readTools  = map[string]bool{"read": true}
	shellTools = map[string]bool{"bash": true}
)

// buildSession turns one session and its messages, in order, into the
// neutral shape. A message's Line is its 1-based position in the session:
// a store has no lines.
func buildSession(info sessionInfo, msgs []messageInfo) harness.Session {
	s := harness.Session{
		ID:      IDPrefix + info.ID,
		Project: info.Directory,
		Marker:  marker(info),
	}
	if info.Created > 0 {
		s.Started = time.UnixMilli(info.Created).UTC()
	}
	if info.ParentID != "" {
		s.Parent, s.Subagent = IDPrefix+info.ParentID, true
	}
	if s.Project == "" {
		// 0.5 session files have no directory; its assistant messages
		// carry the working directory.
		for _, m := range msgs {
			if m.Cwd != "" {
				s.Project = m.Cwd
				break
			}
		}
	}
	turn := -1
	seen := map[recordKey]bool{}
	for i, m := range msgs {
		line := i + 1
		var when time.Time
		if m.Created > 0 {
			when = time.UnixMilli(m.Created).UTC()
		}
		if s.Started.IsZero() {
			s.Started = when
		}
		var texts []string
		for _, p := range m.Parts {
			// Synthetic text is OpenCode's, not the user's ("The following
			// tool was executed by the user"); reasoning is the thinking.
			if p.Type == "text" && !p.Synthetic && !p.Ignored && strings.TrimSpace(p.Text) != "" {
				texts = append(texts, p.Text)
			}
		}
		switch m.Role {
		case "user":
			if len(texts) > 0 {
				turn++
				s.Messages = append(s.Messages, harness.Message{Role: harness.User, Text: strings.TrimSpace(strings.Join(texts, "\n\n")), Turn: turn, Line: line, Time: when})
			}
		case "assistant":
			if len(texts) > 0 {
				s.Messages = append(s.Messages, harness.Message{Role: harness.Assistant, Text: strings.TrimSpace(strings.Join(texts, "\n\n")), Turn: turn, Line: line, Time: when})
			}
		default:
			continue
		}
		for _, p := range m.Parts {
			for _, r := range partRecords(p, s.Project) {
				r.Turn, r.Line = turn, line
				// A patch part's bare record of a file that a tool call
				// of the turn already recorded says nothing more.
				key, bare := keyOf(r), keyOf(harness.Record{Kind: r.Kind, Value: r.Value, Action: r.Action, Turn: r.Turn})
				if !seen[key] && (key != bare || !seen[bare]) {
					seen[key], seen[bare] = true, true
					s.Records = append(s.Records, r)
				}
			}
		}
	}
	return s
}

// recordKey is a record without its line, and with its exit status by
// value, so that a call repeated in a turn with the same outcome is kept
// once.
type recordKey struct {
	r    harness.Record
	exit int
}

func keyOf(r harness.Record) recordKey {
	k := recordKey{r: r, exit: -1}
	k.r.Line = 0
	if r.Outcome.Exit != nil {
		k.exit, k.r.Outcome.Exit = *r.Outcome.Exit, nil
	}
	return k
}

// partRecords returns the records one part yields, with the call's
// outcome and, for an applied edit, one record per replaced span. A tool
// still pending has not run and a read that failed touched no file, so
// they yield none; a command is recorded once it was started. A patch part
// lists the files a step changed, whichever tool changed them.
func partRecords(p partInfo, project string) []harness.Record {
	switch p.Type {
	case "patch":
		var out []harness.Record
		for _, f := range p.Files {
			if v := relative(f, project); v != "" {
				out = append(out, harness.Record{Kind: harness.FileRecord, Value: v, Action: harness.Edited})
			}
		}
		return out
	case "tool":
	default:
		return nil
	}
	switch {
	case shellTools[p.Tool]:
		if cmd := strings.TrimSpace(p.Input.Command); cmd != "" && p.Status != "pending" {
			return []harness.Record{{Kind: harness.CommandRecord, Value: cmd, Outcome: p.Outcome}}
		}
	case editTools[p.Tool], readTools[p.Tool]:
		// A failed read touched nothing; a failed edit is kept, marked
		// failed and without its text, so recall can tell what did not
		// land.
		if p.Status == "pending" || (p.Status == "error" && !editTools[p.Tool]) {
			return nil
		}
		action := harness.Read
		if editTools[p.Tool] {
			action = harness.Edited
		}
		files := patchFiles(p.Input.PatchText)
		if f := p.Input.FilePath; f != "" {
			files = append([]string{f}, files...)
		} else if f := p.Input.Path; f != "" && len(files) == 0 {
			files = []string{f}
		}
		var out []harness.Record
		for i, f := range files {
			v := relative(f, project)
			if v == "" {
				continue
			}
			r := harness.Record{Kind: harness.FileRecord, Value: v, Action: action, Outcome: p.Outcome}
			// The spans are filePath's, the first file; one record each.
			if i > 0 || p.Input.FilePath == "" || p.Status != "completed" || len(p.Spans) == 0 {
				out = append(out, r)
				continue
			}
			for _, sp := range p.Spans {
				r.Span = sp
				out = append(out, r)
			}
		}
		return out
	}
	return nil
}

// patchFiles returns the files a patch tool's patchText names in its
// "*** Add File: ", "*** Update File: ", "*** Delete File: " and
// "*** Move to: " headers.
func patchFiles(text string) []string {
	var out []string
	for text != "" {
		var l string
		l, text, _ = strings.Cut(text, "\n")
		l = strings.TrimRight(l, "\r")
		for _, h := range []string{"*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: "} {
			if rest, ok := strings.CutPrefix(l, h); ok && strings.TrimSpace(rest) != "" {
				out = append(out, strings.TrimSpace(rest))
			}
		}
	}
	return out
}

// relative writes p relative to the session's directory when it lies
// under it; other paths stay as written, cleaned.
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
