package zed

import (
	"strings"

	"github.com/deja-dev/deja/harness"
)

// call is a tool call's records, n of them from at in the session's
// records, waiting for its result.
type call struct {
	tool, command string
	at, n         int
}

// session builds one thread's session as its messages are read.
type session struct {
	s       harness.Session
	roots   []string
	turn    int
	pending map[string]call
}

// buildSession turns one thread and its document (nil when it could not
// be read) into the neutral shape. A message's Line is its 1-based
// position in the document's messages.
func buildSession(id string, r threadRow, doc []byte, skip skipped) harness.Session {
	b := session{s: harness.Session{ID: id, Marker: r.Marker, Started: r.Created}, turn: -1, pending: map[string]call{}}
	if r.Parent != "" {
		// A parent of no shape ValidID takes is left to CheckIDs.
		b.s.Parent, b.s.Subagent = IDPrefix+r.Parent, true
	}
	var d document
	if doc != nil {
		var ok bool
		if d, ok = decodeDocument(doc); !ok {
			skip.add("threads whose document is not Zed's JSON")
		}
	}
	// folder_paths is Zed's PathList: the workspace's folders, one a
	// line, sorted; the first is the project. A row from before it has
	// none, and its paths stay as its tools wrote them.
	for _, p := range strings.Split(r.Folders, "\n") {
		if p = strings.TrimSpace(p); p != "" {
			b.roots = append(b.roots, p)
		}
	}
	if len(b.roots) > 0 {
		b.s.Project = b.roots[0]
	}
	for i := range d.Messages {
		m, line := &d.Messages[i], i+1
		var texts []string
		if m.Text != "" {
			texts = append(texts, m.Text)
		}
		for _, s := range m.Segments {
			if s.Type == "text" {
				texts = append(texts, s.Text)
			}
		}
		c := m.User
		if c == nil {
			c = m.Agent
		}
		if c == nil {
			c = &content{}
		}
		for _, item := range c.Content {
			if item.Text != nil {
				texts = append(texts, *item.Text)
			}
		}
		switch {
		case m.User != nil || m.Role == "user" && !m.IsHidden:
			if b.add(harness.User, texts, line) {
				b.turn++
				b.s.Messages[len(b.s.Messages)-1].Turn = b.turn
			}
		case m.Agent != nil || m.Role == "assistant":
			b.add(harness.Assistant, texts, line)
		}
		for j := range m.ToolUses {
			b.toolUse(&m.ToolUses[j], line)
		}
		for _, item := range c.Content {
			if item.ToolUse != nil {
				b.toolUse(item.ToolUse, line)
			}
		}
		// Results come after their calls in the same message, or (0.1.0)
		// in the user message after it.
		for id, r := range c.ToolResults {
			b.result(id, &r)
		}
		for j := range m.ToolResults {
			b.result("", &m.ToolResults[j])
		}
	}
	// A read whose result is an error (a file not there) touched nothing.
	kept := b.s.Records[:0]
	for _, r := range b.s.Records {
		if r.Value != "" {
			kept = append(kept, r)
		}
	}
	b.s.Records = kept
	return b.s
}

// result ends the pending call r answers; id is the key a 0.3.0 result
// is listed by.
func (b *session) result(id string, r *toolResult) {
	if r.ToolUseID != "" {
		id = r.ToolUseID
	}
	if c, ok := b.pending[id]; ok {
		delete(b.pending, id)
		endCall(b.s.Records[c.at:c.at+c.n], c, r)
	}
}

// add appends a message of the texts when they hold any, and reports
// whether it did.
func (b *session) add(role harness.Role, texts []string, line int) bool {
	text := strings.TrimSpace(strings.Join(texts, "\n\n"))
	if text != "" {
		b.s.Messages = append(b.s.Messages, harness.Message{Role: role, Text: text, Turn: b.turn, Line: line})
	}
	return text != ""
}

// record appends a record of a non-empty value, and reports whether it
// did.
func (b *session) record(kind harness.RecordKind, value string, action harness.FileAction, line int) bool {
	if value == "" {
		return false
	}
	b.s.Records = append(b.s.Records, harness.Record{Kind: kind, Value: value, Action: action, Turn: b.turn, Line: line})
	return true
}

// path is a tool's path as a record keeps it: relative to
// the project where it lies in it. Zed's tools name a file by the name of
// one of the workspace's folders and the path below it
// ("backend/src/main.rs"), which is read against that folder.
func (b *session) path(p string) string {
	p = strings.TrimSpace(p)
	if p == "" {
		return ""
	}
	slashed := strings.ReplaceAll(p, `\`, "/")
	if first, rest, _ := strings.Cut(slashed, "/"); first != "" && !strings.HasSuffix(first, ":") {
		for _, root := range b.roots {
			r := strings.TrimRight(strings.ReplaceAll(root, `\`, "/"), "/")
			if r[strings.LastIndexByte(r, '/')+1:] == first {
				p = r + "/" + rest
				break
			}
		}
	}
	return harness.RelPath(b.s.Project, p)
}
