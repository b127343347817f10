package zed

import (
	"encoding/json"
	"strings"

	"github.com/deja-dev/deja/harness"
)

// A thread's document is JSON (DbThread in crates/agent/src/db.rs, with
// its version beside its fields). Version 0.3.0 lists its messages as
// Rust's externally tagged Message: {"User": {id, content}}, {"Agent":
// {content, tool_results}} or "Resume", the marker Zed sends as "Continue
// where you left off". Older documents (SerializedThread 0.2.0 and 0.1.0
// in legacy_thread.rs, and those with no version) list messages with a
// role, text segments (or one text), tool_uses and tool_results.

// document is what deja reads of a thread's document.
type document struct {
	Messages []json.RawMessage `json:"messages"`
	// InitialProjectSnapshot names the workspace's folders when the
	// thread began (ProjectSnapshot in thread.rs): the project of a row
	// from before folder_paths.
	InitialProjectSnapshot *struct {
		WorktreeSnapshots []struct {
			WorktreePath string `json:"worktree_path"`
		} `json:"worktree_snapshots"`
	} `json:"initial_project_snapshot"`
}

// message is one message of either generation.
type message struct {
	User  *userMessage  `json:"User"`
	Agent *agentMessage `json:"Agent"`

	Role     string `json:"role"`
	Text     string `json:"text"`
	Segments []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"segments"`
	ToolUses []struct {
		ID    string          `json:"id"`
		Name  string          `json:"name"`
		Input json.RawMessage `json:"input"`
	} `json:"tool_uses"`
	ToolResults json.RawMessage `json:"tool_results"`
	// IsHidden marks a message Zed wrote itself and did not show.
	IsHidden bool `json:"is_hidden"`
}

type userMessage struct {
	Content []struct {
		Text    *string `json:"Text"`
		Mention *struct {
			URI struct {
				File *struct {
					AbsPath string `json:"abs_path"`
				} `json:"File"`
			} `json:"uri"`
		} `json:"Mention"`
	} `json:"content"`
}

type agentMessage struct {
	Content []struct {
		Text    *string `json:"Text"`
		ToolUse *struct {
			ID    string          `json:"id"`
			Name  string          `json:"name"`
			Input json.RawMessage `json:"input"`
		} `json:"ToolUse"`
	} `json:"content"`
	// ToolResults is a map by tool use id in 0.3.0 (an IndexMap), a list
	// in older documents.
	ToolResults json.RawMessage `json:"tool_results"`
}

// toolResult is a LanguageModelToolResult: its content is what the model
// was told (a string, or {"Text": …}, or a list of them), its output the
// tool's own value (an edit's input_path, old_text, new_text and diff).
type toolResult struct {
	ToolUseID string          `json:"tool_use_id"`
	IsError   bool            `json:"is_error"`
	Content   json.RawMessage `json:"content"`
	Output    json.RawMessage `json:"output"`
}

// call is a tool call's records, n of them from at in the session's
// records, waiting for its result.
type call struct {
	tool    string
	command string
	at, n   int
}

// session builds one thread's session as its messages are read.
type session struct {
	s       harness.Session
	roots   []string
	turn    int
	pending map[string]call
	skip    skipped
}

// buildSession turns one thread and its document into the neutral shape.
// A message's Line is its 1-based position in the document's messages.
func buildSession(id string, r threadRow, doc []byte, skip skipped) harness.Session {
	b := session{s: harness.Session{ID: id, Marker: r.Marker, Started: r.Created}, turn: -1, pending: map[string]call{}, skip: skip}
	if r.Parent != "" {
		// A parent of no shape ValidID takes is left to CheckIDs.
		b.s.Parent, b.s.Subagent = IDPrefix+r.Parent, true
	}
	var d document
	if doc != nil && json.Unmarshal(doc, &d) != nil {
		skip.add("threads whose document is not Zed's JSON")
		doc = nil
	}
	// folder_paths is Zed's PathList: the workspace's folders, one a
	// line, sorted; the first is the project.
	folders := strings.Split(r.Folders, "\n")
	if r.Folders == "" && d.InitialProjectSnapshot != nil {
		folders = nil
		for _, w := range d.InitialProjectSnapshot.WorktreeSnapshots {
			folders = append(folders, w.WorktreePath)
		}
	}
	for _, p := range folders {
		if p = strings.TrimSpace(p); p != "" {
			b.roots = append(b.roots, p)
		}
	}
	if len(b.roots) > 0 {
		b.s.Project = b.roots[0]
	}
	if doc == nil {
		return b.s
	}
	for i, raw := range d.Messages {
		line := i + 1
		var m message
		if firstByte(raw) == '"' {
			// "Resume": Zed's own prompt, no one's words.
			continue
		}
		if err := json.Unmarshal(raw, &m); err != nil {
			skip.add("messages of no shape Zed writes")
			continue
		}
		switch {
		case m.User != nil:
			b.user(m.User, line)
		case m.Agent != nil:
			b.agent(m.Agent, line)
		case m.Role == "user" && !m.IsHidden:
			b.legacyUser(m, line)
		case m.Role == "assistant":
			b.legacyAgent(m, line)
		}
		if m.Role != "" {
			// 0.1.0 put results in the user message after the call.
			b.results(m.ToolResults)
		}
	}
	b.s.Records = keptRecords(b.s.Records)
	return b.s
}

// prompt adds a user message when text holds any, starting a turn.
func (b *session) prompt(texts []string, line int) {
	if text := join(texts); text != "" {
		b.turn++
		b.s.Messages = append(b.s.Messages, harness.Message{Role: harness.User, Text: text, Turn: b.turn, Line: line})
	}
}

func (b *session) answer(texts []string, line int) {
	if text := join(texts); text != "" {
		b.s.Messages = append(b.s.Messages, harness.Message{Role: harness.Assistant, Text: text, Turn: b.turn, Line: line})
	}
}

func join(texts []string) string {
	var kept []string
	for _, t := range texts {
		if t = strings.TrimSpace(t); t != "" {
			kept = append(kept, t)
		}
	}
	return strings.Join(kept, "\n\n")
}

// user reads a 0.3.0 user message: its text, and the files it mentions
// (@-mentions, whose content Zed inlined for the model) as added.
func (b *session) user(u *userMessage, line int) {
	var texts, files []string
	for _, c := range u.Content {
		switch {
		case c.Text != nil:
			texts = append(texts, *c.Text)
		case c.Mention != nil && c.Mention.URI.File != nil:
			files = append(files, c.Mention.URI.File.AbsPath)
		}
	}
	b.prompt(texts, line)
	for _, f := range files {
		if v := b.path(f); v != "" {
			b.s.Records = append(b.s.Records, harness.Record{Kind: harness.FileRecord, Value: v, Action: harness.Added, Turn: b.turn, Line: line})
		}
	}
}

func (b *session) agent(a *agentMessage, line int) {
	var texts []string
	for _, c := range a.Content {
		switch {
		case c.Text != nil:
			texts = append(texts, *c.Text)
		case c.ToolUse != nil:
			b.toolUse(c.ToolUse.ID, c.ToolUse.Name, c.ToolUse.Input, line)
		}
	}
	b.answer(texts, line)
	b.results(a.ToolResults)
}

func (b *session) legacyUser(m message, line int) {
	texts := []string{m.Text}
	for _, s := range m.Segments {
		if s.Type == "text" {
			texts = append(texts, s.Text)
		}
	}
	b.prompt(texts, line)
}

func (b *session) legacyAgent(m message, line int) {
	texts := []string{m.Text}
	for _, s := range m.Segments {
		if s.Type == "text" {
			texts = append(texts, s.Text)
		}
	}
	b.answer(texts, line)
	for _, u := range m.ToolUses {
		b.toolUse(u.ID, u.Name, u.Input, line)
	}
}

// results ends the pending calls that raw's results answer: an object by
// tool use id (0.3.0) or a list (older documents).
func (b *session) results(raw json.RawMessage) {
	var list []toolResult
	switch firstByte(raw) {
	case '{':
		var byID map[string]toolResult
		if json.Unmarshal(raw, &byID) != nil {
			b.skip.add("tool results of no shape Zed writes")
			return
		}
		for id, r := range byID {
			if r.ToolUseID == "" {
				r.ToolUseID = id
			}
			list = append(list, r)
		}
	case '[':
		if json.Unmarshal(raw, &list) != nil {
			b.skip.add("tool results of no shape Zed writes")
			return
		}
	}
	for _, r := range list {
		if c, ok := b.pending[r.ToolUseID]; ok {
			delete(b.pending, r.ToolUseID)
			endCall(b.s.Records[c.at:c.at+c.n], c, r)
		}
	}
}

func firstByte(raw []byte) byte {
	for _, c := range raw {
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			return c
		}
	}
	return 0
}

// path is a tool's or mention's path as a record keeps it: relative to
// the project where it lies in it. Zed's tools name a file by the name of
// one of the workspace's folders and the path below it
// ("backend/src/main.rs"), which is read against that folder.
func (b *session) path(p string) string {
	p = strings.TrimSpace(p)
	if p == "" {
		return ""
	}
	slashed := strings.ReplaceAll(p, `\`, "/")
	if !strings.HasPrefix(slashed, "/") && !(len(slashed) > 2 && slashed[1] == ':' && slashed[2] == '/') {
		first, rest, _ := strings.Cut(slashed, "/")
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
