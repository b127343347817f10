package cursor

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/deja-dev/deja/harness"
)

// The tools whose calls become records, by lower-cased name: the IDE's
// snake_case tools (toolFormerData.name) and the transcripts' PascalCase
// ones (tool_use.name).
var (
	shellTools = set("run_terminal_cmd", "run_terminal_command", "run_terminal_command_v2", "shell", "bash", "terminal")
	readTools  = set("read_file", "read_file_v2", "read")
	editTools  = set("edit_file", "edit_file_v2", "search_replace", "str_replace", "strreplace", "multi_str_replace",
		"multiedit", "apply_patch", "write", "write_file", "create_file", "delete_file", "delete", "edit",
		"edit_notebook", "editnotebook")
)

func set(names ...string) map[string]bool {
	m := map[string]bool{}
	for _, n := range names {
		m[n] = true
	}
	return m
}

// toolRecords returns the records of one tool call: a command once it was
// not refused, a file once the call did not fail, save an edit, kept
// marked failed. Paths are written relative to the project when under
// it. status is an IDE call's toolFormerData.status: "completed" or
// "error" is how the call ended; transcripts and CLI chats have none.
func toolRecords(name, status string, args toolArgs, project string) []harness.Record {
	lower := strings.ToLower(name)
	switch status {
	case "cancelled", "rejected", "aborted":
		return nil
	}
	var o harness.Outcome
	switch status {
	case "completed":
		o.Status = harness.Succeeded
	case "error":
		o.Status = harness.Failed
	}
	switch {
	case shellTools[lower]:
		if cmd := trimmed(args.Command); cmd != "" {
			return []harness.Record{{Kind: harness.CommandRecord, Value: cmd, Outcome: o}}
		}
	case readTools[lower], editTools[lower]:
		if status == "error" && !editTools[lower] {
			return nil
		}
		action := harness.Read
		if editTools[lower] {
			action = harness.Edited
		} else {
			o = harness.Outcome{}
		}
		var out []harness.Record
		for _, p := range args.Paths {
			if v := harness.RelPath(project, p); v != "" {
				out = append(out, harness.Record{Kind: harness.FileRecord, Value: v, Action: action, Outcome: o})
			}
		}
		if len(out) == 1 && status != "error" {
			out[0].Span = spanOf(name, args)
		}
		return out
	}
	return nil
}

// spanOf is what an agent transcript's StrReplace {path, old_string,
// new_string} or Write {path, contents} call wrote. The names are the
// transcripts' own, PascalCase; the IDE's and the CLI's tools are not
// read for spans, as no collected store shows their arguments.
func spanOf(name string, a toolArgs) harness.Span {
	switch {
	case name == "StrReplace" && (a.Old != nil || a.New != nil):
		var sp harness.Span
		if a.Old != nil {
			sp.Old, sp.Clipped = a.Old.Text, a.Old.Cut
		}
		if a.New != nil {
			sp.New, sp.Clipped = a.New.Text, sp.Clipped || a.New.Cut
		}
		return sp
	case name == "Write" && a.Contents != nil:
		return harness.Span{New: a.Contents.Text, Whole: true, Clipped: a.Contents.Cut}
	}
	return harness.Span{}
}

// buildSession turns one IDE conversation, its bubbles in order, into the
// neutral shape under id, with the warning that names its messages that carry no
// time ("" when all do). A message's Line is its bubble's 1-based
// position in the conversation: a store has no lines.
func buildSession(id string, c composer, project, parent string) (harness.Session, string) {
	s := harness.Session{ID: id, Project: project}
	if parent != "" {
		s.Parent, s.Subagent = parent, true
	}
	if c.Created > 0 {
		s.Started = time.UnixMilli(c.Created).UTC()
	}
	var tm timer
	tm.last = s.Started
	turn := -1
	seen := map[harness.Record]bool{}
	for i, b := range c.Conversation {
		line := i + 1
		text := trimmed(b.Text)
		switch {
		case b.Type == 1 && text != "":
			turn++
			s.Messages = append(s.Messages, harness.Message{Role: harness.User, Text: text, Turn: turn, Line: line, Time: tm.at(b.Time, line)})
		case b.Type == 2 && text != "":
			s.Messages = append(s.Messages, harness.Message{Role: harness.Assistant, Text: text, Turn: turn, Line: line, Time: tm.at(b.Time, line)})
		default:
			tm.at(b.Time, 0)
		}
		if b.Type != 2 {
			continue
		}
		recs := toolRecords(b.Tool.Name, b.Tool.Status, b.Tool.Args, project)
		for _, f := range b.Files {
			if v := harness.RelPath(project, f); v != "" {
				recs = append(recs, harness.Record{Kind: harness.FileRecord, Value: v, Action: harness.Edited})
			}
		}
		for _, r := range recs {
			r.Turn, r.Line = turn, line
			key := r
			key.Line = 0
			if !seen[key] {
				seen[key] = true
				s.Records = append(s.Records, r)
			}
		}
	}
	if s.Started.IsZero() && len(s.Messages) > 0 {
		s.Started = s.Messages[0].Time
	}
	start := c.StartName
	if start == "" {
		start = "the conversation's start (its createdAt)"
	}
	return s, tm.warning(s.ID, "the time of the message before it, or "+start+" for the first")
}

// timer gives messages their times: a message's own, else the last time
// known before it, and remembers the lines of the messages that had none.
type timer struct {
	last    time.Time
	untimed []int
	total   int
}

// at returns the time of the message at line (0: not a message, whose
// time only carries on).
func (t *timer) at(own time.Time, line int) time.Time {
	if line > 0 {
		t.total++
	}
	if !own.IsZero() {
		t.last = own
		return own
	}
	if line > 0 {
		t.untimed = append(t.untimed, line)
	}
	return t.last
}

// warning names the messages of session id that carry no time, and what
// they were given instead.
func (t *timer) warning(id, instead string) string {
	if len(t.untimed) == 0 {
		return ""
	}
	lines, verb := "lines", "have"
	if len(t.untimed) == 1 {
		lines, verb = "line", "has"
	}
	what := fmt.Sprintf("%d of %d messages (%s %s)", len(t.untimed), t.total, lines, spans(t.untimed))
	switch {
	case t.total == 1:
		what, verb = "its one message", "has"
	case len(t.untimed) == t.total:
		what, verb = fmt.Sprintf("all %d messages", t.total), "have"
	}
	return fmt.Sprintf("session %s: %s %s no time in Cursor's record; each is given %s", id, what, verb, instead)
}

// maxSpans bounds the ranges a warning lists.
const maxSpans = 20

// spans writes ascending numbers as ranges: 1-3, 5, 8-9; past maxSpans
// ranges, how many numbers are left.
func spans(ns []int) string {
	var b strings.Builder
	for i, n := 0, 0; i < len(ns); n++ {
		if n == maxSpans {
			fmt.Fprintf(&b, " and %d more", len(ns)-i)
			break
		}
		j := i
		for j+1 < len(ns) && ns[j+1] == ns[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Itoa(ns[i]))
		if j > i {
			b.WriteString("-" + strconv.Itoa(ns[j]))
		}
		i = j + 1
	}
	return b.String()
}
