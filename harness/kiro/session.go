package kiro

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/deja-dev/deja/harness"
)

// The session files of the Kiro CLI's newer engines, under
// ~/.kiro/sessions: cli/<session_id>.jsonl beside its <session_id>.json
// header (v2), and <workspace>/sess_<id>/messages.jsonl beside its
// session.json (v3, which also holds sessions the IDE wrote).
const (
	sessionsRoot = "sessions"
	cliDir       = "cli"
	messagesName = "messages.jsonl"
	v3Header     = "session.json"
)

// sessionFile is the session a path names, and whether it is a v3 one:
// a UUID-named .jsonl in a cli folder (v2), or messages.jsonl in a
// sess_<id> (or <uuid>) folder two below a sessions folder (v3).
func sessionFile(p string) (id string, v3, ok bool) {
	name, dir := filepath.Base(p), filepath.Dir(p)
	if name == messagesName {
		id = strings.TrimPrefix(filepath.Base(dir), "sess_")
		return id, true, harness.IsToken(id) && filepath.Base(filepath.Dir(filepath.Dir(dir))) == sessionsRoot
	}
	id, ok = strings.CutSuffix(name, ".jsonl")
	return id, false, ok && harness.IsUUID(id) && filepath.Base(dir) == cliDir
}

// v2Record is a line of a v2 session: {"version": "v1", "kind": "Prompt"
// | "AssistantMessage" | "ToolResults" | "Compaction" | "Clear", "data":
// {message_id, content: [{kind, data}], meta: {timestamp}}}; a part's
// kind is text (data a string), toolUse ({toolUseId, name, input}),
// toolResult ({toolUseId, content: [{kind: text | json, data}], status}),
// thinking or image. meta.timestamp, in seconds, is on prompts only.
type v2Record struct {
	Kind string `json:"kind"`
	Data struct {
		MessageID string `json:"message_id"`
		Content   []part `json:"content"`
		Meta      struct {
			Timestamp float64 `json:"timestamp"`
		} `json:"meta"`
	} `json:"data"`
}

type part struct {
	Kind string          `json:"kind"`
	Data json.RawMessage `json:"data"`
}

// v2Part is a toolUse's or toolResult's data.
type v2Part struct {
	ID      string          `json:"toolUseId"`
	Name    string          `json:"name"`
	Input   json.RawMessage `json:"input"`
	Content []part          `json:"content"`
	Status  string          `json:"status"`
}

// v3Record is a line of a v3 messages.jsonl: {id, timestamp (RFC 3339),
// payload: {type: user | assistant | tool_call | tool_result | …,
// content}}, or, from older builds, the flat {role, content}.
type v3Record struct {
	Timestamp string          `json:"timestamp"`
	Type      string          `json:"type"`
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	Payload   *v3Record       `json:"payload"`
}

// header is what deja reads of a session's header file: v2's
// {session_id, cwd, created_at, updated_at, title, parent_session_id,
// session_state}, v3's {id, modelId, workspacePaths, createdAt}.
type header struct {
	CWD        string   `json:"cwd"`
	Created    string   `json:"created_at"`
	Parent     string   `json:"parent_session_id"`
	Workspaces []string `json:"workspacePaths"`
	CreatedAt  string   `json:"createdAt"`
}

// ReadSessionFile reads one session file of the newer engines: session
// kiro-<session_id> (v2; the ID a conversations_v2 row of the same
// conversation has, which ReadStore then leaves to this file) or
// kiro-ws-<id> (v3), its marker the sizes and times of the file and its
// header. Its lines are read through harness.LineBound, a line at a
// time; an unterminated last line that is not whole JSON is one the CLI
// is still writing, left for the next read. When opts.Unchanged reports
// it known, nothing is read.
func ReadSessionFile(path string, opts harness.ParseOptions) (*harness.History, error) {
	id, v3, ok := sessionFile(path)
	if !ok {
		return nil, fmt.Errorf("%s: not a Kiro CLI session file (cli/<uuid>.jsonl or <workspace>/sess_<id>/messages.jsonl under ~/.kiro/sessions)", path)
	}
	hdr := strings.TrimSuffix(path, ".jsonl") + ".json"
	if v3 {
		id, hdr = wsPrefix+id, filepath.Join(filepath.Dir(path), v3Header)
	} else {
		id = IDPrefix + id
	}
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	marker := fmt.Sprintf("%d:%d", info.Size(), info.ModTime().UnixNano())
	if hi, err := os.Stat(hdr); err == nil {
		marker += fmt.Sprintf(":%d:%d", hi.Size(), hi.ModTime().UnixNano())
	}
	h := &harness.History{Path: path}
	if opts.Unchanged != nil && opts.Unchanged(id, marker) {
		h.Sessions = []harness.Session{{ID: id, Ordinal: 1, Marker: marker}}
		return h, nil
	}
	f, err := harness.OpenSide(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var hd header
	if data, err := harness.ReadSide(hdr, harness.MaxLine); err == nil {
		_ = json.Unmarshal(data, &hd)
	}
	s := harness.Session{ID: id, Ordinal: 1, Marker: marker, Project: hd.CWD}
	if len(hd.Workspaces) > 0 {
		s.Project = hd.Workspaces[0]
	}
	if !isAbs(s.Project) {
		s.Project = ""
	}
	if harness.IsUUID(hd.Parent) && !v3 {
		s.Parent = IDPrefix + hd.Parent
	}
	h.Warnings, err = parseSession(f, &s, v3)
	if err != nil {
		return nil, err
	}
	for _, c := range []string{hd.Created, hd.CreatedAt} {
		if t, err := time.Parse(time.RFC3339Nano, c); err == nil {
			s.Started = t
			break
		}
	}
	if len(s.Messages) > 0 || len(s.Records) > 0 {
		h.Sessions = []harness.Session{s}
	}
	return h, nil
}

// parseSession reads the lines of a v2 or v3 session file from r into
// s, through harness.LineBound, and returns its warnings; s.Started is
// its first timed message's time.
func parseSession(r io.Reader, s *harness.Session, v3 bool) ([]string, error) {
	bound := harness.NewLineBound(r, harness.Limits{}, 0)
	p := &sessionParse{s: s, turn: -1, pending: map[string][]int{}}
	err := eachLine(bound, func(n int, line []byte) {
		if v3 {
			p.v3(n, line)
		} else {
			p.v2(n, line)
		}
	})
	s.Started = firstTime(s.Messages)
	return append(bound.Warnings(), p.warn.List()...), err
}

// eachLine calls line with each line r holds and its 1-based number; an
// unterminated last line is handed on only when it is whole JSON.
func eachLine(r io.Reader, line func(n int, b []byte)) error {
	br := bufio.NewReaderSize(r, 64<<10)
	for n := 1; ; n++ {
		b, err := br.ReadBytes('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		if b = bytes.TrimSpace(b); len(b) > 0 && (err == nil || json.Valid(b)) {
			line(n, b)
		}
		if err != nil {
			return nil
		}
	}
}

// sessionParse is a session file's parse so far.
type sessionParse struct {
	s    *harness.Session
	turn int
	last time.Time
	// lastID is the message_id of the last assistant message, whose
	// streamed pieces follow it under the same id.
	lastID string
	// pending are the records of each tool call not yet answered.
	pending map[string][]int
	warn    harness.Warnings
}

// v2 reads one line of a v2 session: a prompt starts a turn, an
// assistant message's text is an answer and its tool calls records, a
// tool result the outcome of the records of its call.
func (p *sessionParse) v2(n int, line []byte) {
	var r v2Record
	if err := json.Unmarshal(line, &r); err != nil {
		p.warn.Add("not a Kiro session record", n)
		return
	}
	if ts := r.Data.Meta.Timestamp; ts > 0 && ts < 1e11 {
		p.last = time.UnixMilli(int64(ts * 1000))
	}
	s := p.s
	switch r.Kind {
	case "Prompt":
		if text := partText(r.Data.Content); text != "" {
			p.turn++
			s.Messages = append(s.Messages, harness.Message{Role: harness.User, Text: text, Turn: p.turn, Line: n, Time: p.last})
		}
		p.lastID = ""
	case "AssistantMessage":
		if text := partText(r.Data.Content); text != "" {
			if k := len(s.Messages) - 1; r.Data.MessageID != "" && r.Data.MessageID == p.lastID && k >= 0 && s.Messages[k].Role == harness.Assistant {
				s.Messages[k].Text += text
			} else {
				s.Messages = append(s.Messages, harness.Message{Role: harness.Assistant, Text: text, Turn: p.turn, Line: n, Time: p.last})
			}
		}
		p.lastID = r.Data.MessageID
		for _, c := range r.Data.Content {
			var u v2Part
			if c.Kind != "toolUse" || json.Unmarshal(c.Data, &u) != nil {
				continue
			}
			for _, rec := range records(toolUse{ID: u.ID, Name: u.Name, Args: u.Input}, s.Project) {
				rec.Turn, rec.Line = p.turn, n
				p.pending[u.ID] = append(p.pending[u.ID], len(s.Records))
				s.Records = append(s.Records, rec)
			}
		}
	case "ToolResults":
		for _, c := range r.Data.Content {
			var u v2Part
			if c.Kind != "toolResult" || json.Unmarshal(c.Data, &u) != nil || u.ID == "" {
				continue
			}
			res := toolResult{ID: u.ID, Status: u.Status}
			for _, b := range u.Content {
				var blk resultBlock
				if b.Kind == "json" {
					blk.JSON = b.Data
				} else {
					_ = json.Unmarshal(b.Data, &blk.Text)
				}
				res.Content = append(res.Content, blk)
			}
			for _, i := range p.pending[u.ID] {
				s.Records[i].Outcome = outcome(res, s.Records[i].Kind)
			}
			delete(p.pending, u.ID)
		}
	}
}

// partText joins the text parts of a record's content.
func partText(parts []part) string {
	var out []string
	for _, c := range parts {
		var t string
		if c.Kind == "text" && json.Unmarshal(c.Data, &t) == nil && strings.TrimSpace(t) != "" {
			out = append(out, t)
		}
	}
	return strings.Join(out, "\n\n")
}

// v3 reads one line of a v3 messages.jsonl: a user payload is a prompt,
// an assistant one an answer; the rest (tool_call, tool_result,
// session_metadata, usage_summary, turn_end) are left unread.
func (p *sessionParse) v3(n int, line []byte) {
	var r v3Record
	if err := json.Unmarshal(line, &r); err != nil {
		p.warn.Add("not a Kiro session record", n)
		return
	}
	if t, err := time.Parse(time.RFC3339Nano, r.Timestamp); err == nil {
		p.last = t
	}
	if r.Payload != nil {
		r = *r.Payload
	}
	kind := r.Type + r.Role
	var text string
	if json.Unmarshal(r.Content, &text) != nil {
		var parts []struct{ Text string }
		_ = json.Unmarshal(r.Content, &parts)
		for _, c := range parts {
			text += c.Text
		}
	}
	if strings.TrimSpace(text) == "" {
		return
	}
	switch kind {
	case "user":
		p.turn++
		p.s.Messages = append(p.s.Messages, harness.Message{Role: harness.User, Text: text, Turn: p.turn, Line: n, Time: p.last})
	case "assistant":
		p.s.Messages = append(p.s.Messages, harness.Message{Role: harness.Assistant, Text: text, Turn: p.turn, Line: n, Time: p.last})
	}
}

// firstTime is the time of the first timed message.
func firstTime(ms []harness.Message) time.Time {
	for _, m := range ms {
		if !m.Time.IsZero() {
			return m.Time
		}
	}
	return time.Time{}
}

// sessionIDs are the session ids of the v2 session files beside the
// Kiro CLI store at path, ~/.local/share/kiro-cli/data.sqlite3 (macOS
// ~/Library/Application Support/kiro-cli, Windows
// %LOCALAPPDATA%\kiro-cli): ~/.kiro/sessions/cli/<id>.jsonl, the home
// four folders above the store.
func sessionIDs(store string) map[string]bool {
	home := filepath.Dir(filepath.Dir(filepath.Dir(filepath.Dir(store))))
	found, _ := filepath.Glob(filepath.Join(home, ".kiro", sessionsRoot, cliDir, "*.jsonl"))
	ids := map[string]bool{}
	for _, p := range found {
		if id, _, ok := sessionFile(p); ok {
			ids[id] = true
		}
	}
	return ids
}
