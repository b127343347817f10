package kiro

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/deja-dev/deja/harness"
)

// The IDE keeps its chats in <User>/globalStorage/kiro.kiroagent/
// workspace-sessions/<base64 of the workspace path>/: one <sessionId>.json
// per chat and a sessions.json index of them.
const (
	extensionDir = "kiro.kiroagent"
	sessionsDir  = "workspace-sessions"
	indexName    = "sessions.json"
)

// ideSessionID is the sessionId a file's path names, and whether the path
// is an IDE chat's: <sessionId>.json, not the index, one folder below
// workspace-sessions.
func ideSessionID(p string) (string, bool) {
	name := filepath.Base(p)
	id, ok := strings.CutSuffix(name, ".json")
	if !ok || name == indexName || !harness.IsToken(id) {
		return "", false
	}
	return id, filepath.Base(filepath.Dir(filepath.Dir(p))) == sessionsDir
}

// ideChat is what deja reads of an IDE chat file: its id, the workspace
// it ran in, and its history of messages, each {role, content} where
// content is a string or a list of {type: "text", text} blocks. The
// history carries no times.
type ideChat struct {
	SessionID string `json:"sessionId"`
	Workspace string `json:"workspacePath"`
	History   []struct {
		Message struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"message"`
	} `json:"history"`
}

// ReadIDESession reads one IDE chat file: one session, kiro-ide-<its
// sessionId>, its marker the file's size and time. Its start is the
// dateCreated the folder's sessions.json gives it; its project the
// workspacePath it names, else the folder's decoded name. When
// opts.Unchanged reports it known, the file is not read.
func ReadIDESession(path string, opts harness.ParseOptions) (*harness.History, error) {
	id, ok := ideSessionID(path)
	if !ok {
		return nil, fmt.Errorf("%s: not a Kiro IDE chat (a <sessionId>.json under kiro.kiroagent/workspace-sessions/<workspace>)", path)
	}
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	h := &harness.History{Path: path}
	s := harness.Session{ID: idePrefix + id, Ordinal: 1, Marker: fmt.Sprintf("%d:%d", info.Size(), info.ModTime().UnixNano())}
	if opts.Unchanged != nil && opts.Unchanged(s.ID, s.Marker) {
		h.Sessions = append(h.Sessions, s)
		return h, nil
	}
	data, err := harness.ReadSide(path, harness.MaxLine)
	if err != nil {
		return nil, err
	}
	parsed, err := parseIDEChat(data, id)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	parsed.ID, parsed.Ordinal, parsed.Marker = s.ID, 1, s.Marker
	dir := filepath.Dir(path)
	if parsed.Project == "" {
		parsed.Project = workspaceOf(filepath.Base(dir))
	}
	parsed.Started = created(filepath.Join(dir, indexName), id)
	h.Sessions = append(h.Sessions, parsed)
	return h, nil
}

// parseIDEChat reads a chat's messages, numbering turns by user messages.
// The file must name the sessionId its name does.
func parseIDEChat(data []byte, id string) (harness.Session, error) {
	var c ideChat
	if err := json.Unmarshal(data, &c); err != nil {
		return harness.Session{}, fmt.Errorf("not a Kiro IDE chat: %s", firstLine(err.Error()))
	}
	if c.SessionID != id {
		return harness.Session{}, fmt.Errorf("its sessionId %s is not the one its name gives", harness.Quoted(c.SessionID))
	}
	var s harness.Session
	if isAbs(c.Workspace) {
		s.Project = c.Workspace
	}
	turn := -1
	for i, e := range c.History {
		var role harness.Role
		switch e.Message.Role {
		case "user":
			role = harness.User
		case "assistant":
			role = harness.Assistant
		default:
			continue
		}
		text := contentText(e.Message.Content)
		if strings.TrimSpace(text) == "" {
			continue
		}
		if role == harness.User {
			turn++
		}
		s.Messages = append(s.Messages, harness.Message{Role: role, Text: text, Turn: turn, Line: i + 1})
	}
	return s, nil
}

// contentText is a message's text: the string, or its text blocks joined.
func contentText(raw json.RawMessage) string {
	var text string
	if json.Unmarshal(raw, &text) == nil {
		return text
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &blocks) != nil {
		return ""
	}
	var parts []string
	for _, b := range blocks {
		if b.Type == "text" && strings.TrimSpace(b.Text) != "" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// workspaceOf decodes a workspace folder's name, the base64 of the
// workspace's path (URL-safe or standard, padded or not); "" when it is
// not one of an absolute path.
func workspaceOf(name string) string {
	for _, enc := range []*base64.Encoding{base64.RawURLEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.StdEncoding} {
		if b, err := enc.DecodeString(name); err == nil && isAbs(string(b)) && !strings.ContainsAny(string(b), "\x00\n\r") {
			return string(b)
		}
	}
	return ""
}

// created is the dateCreated (epoch milliseconds, a number or a string)
// that the index at path gives the session id; zero when it gives none.
func created(path, id string) time.Time {
	data, err := harness.ReadSide(path, harness.MaxLine)
	if err != nil {
		return time.Time{}
	}
	var index []struct {
		SessionID string          `json:"sessionId"`
		Created   json.RawMessage `json:"dateCreated"`
	}
	if json.Unmarshal(data, &index) != nil {
		return time.Time{}
	}
	for _, e := range index {
		if e.SessionID != id {
			continue
		}
		ms, err := strconv.ParseInt(strings.Trim(string(e.Created), `"`), 10, 64)
		if err == nil && ms > 0 {
			return time.UnixMilli(ms)
		}
	}
	return time.Time{}
}
