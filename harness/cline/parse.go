package cline

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/internal/jsonscan"
)

// The file names the reader parses.
const (
	legacyFile = "api_conversation_history.json"
	sdkSuffix  = ".messages.json"
)

// Extension folder names under a VS Code-family globalStorage, lower-case.
const (
	clineExt = "saoudrizwan.claude-dev"
	rooExt   = "rooveterinaryinc.roo-cline"
	kiloExt  = "kilocode.kilo-code"
)

// maxSide bounds a side file read beside a history (an SDK manifest, a
// Roo Code history_item.json): they hold a few fields, never turns.
const maxSide = 1 << 20

// maxValue bounds a record's value; a longer path or command is cut.
const maxValue = 4096

// block is one content block of a message, the Anthropic shape both
// stores use. Input and Content are raw JSON, read only where needed.
type block struct {
	Type    string
	Text    string
	Name    string
	Path    string
	Input   []byte
	Content []byte
	// ID names a tool_use; ToolUseID is the call a tool_result answers,
	// IsError its error mark where the result has one.
	ID, ToolUseID string
	IsError       *bool
}

// message is one entry of api_conversation_history.json or of an SDK
// messages array. Roo Code adds ts, isSummary, isTruncationMarker and
// type "reasoning"; the SDK adds ts.
type message struct {
	Role               string
	Content            []block
	TS                 int64
	Type               string
	IsSummary          bool
	IsTruncationMarker bool
}

// Parse reads one history: an SDK session's <id>.messages.json (an object
// with a messages array) or a task folder's api_conversation_history.json
// (a bare array). It returns at most one session. opts.Path names the
// session (its folder is the task id) and the extension that wrote it,
// and leads to the side files that hold the project and the parent; a
// parse without it reads the bytes alone. It never panics: entries that
// are not messages are skipped and counted.
func Parse(data []byte, opts harness.ParseOptions) *harness.History {
	p := parser{h: &harness.History{Path: opts.Path}, data: data}
	trim := bytes.TrimLeft(data, " \t\r\n\xef\xbb\xbf")
	switch {
	case len(trim) == 0:
		return p.h
	case trim[0] == '[':
		p.legacy = true
		p.session = legacySession(opts.Path)
		p.sc.Reset(data)
		p.readArray()
	case trim[0] == '{':
		p.readSDK()
		meta := sdkSession(opts.Path, p.sdkID, p.agent)
		meta.Messages, meta.Records = p.session.Messages, p.session.Records
		p.session = meta
	default:
		p.warn("a file that is neither a JSON array nor an object")
		return p.h
	}
	p.finish(opts)
	return p.h
}

type parser struct {
	sc      jsonscan.Scanner
	h       *harness.History
	data    []byte
	legacy  bool
	session harness.Session
	turn    int
	// lines counts line breaks in data before lineAt.
	lines, lineAt int
	// toolUses counts tool_use blocks; a legacy file with none is of the
	// era that wrote tool calls as XML, whose records come from the tool
	// result headers instead.
	toolUses int
	headers  []harness.Record
	warned   bool
	skipped  map[string]int
	sdkID    string
	agent    string
	// attached are the files named in the user message being read.
	attached []string
	// pending are the records of tool_use blocks whose tool_result is
	// still to come, by call id.
	pending map[string]callRecords
}

// callRecords are the records one tool_use made: n from index start.
type callRecords struct{ start, n int }

func (p *parser) warn(what string) {
	if p.skipped == nil {
		p.skipped = map[string]int{}
	}
	p.skipped[what]++
}

// line returns the 1-based line of byte off, counting forward from the
// last offset asked.
func (p *parser) line(off int) int {
	off = min(max(off, 0), len(p.data))
	if off < p.lineAt {
		p.lines, p.lineAt = 0, 0
	}
	p.lines += bytes.Count(p.data[p.lineAt:off], []byte{'\n'})
	p.lineAt = off
	return p.lines + 1
}

// readSDK walks the top-level object of an SDK messages file, reading
// sessionId and agent and the messages array.
func (p *parser) readSDK() {
	sc := &p.sc
	sc.Reset(p.data)
	ok := sc.Object(func(key []byte) bool {
		switch string(key) {
		case "messages":
			p.readArray()
		case "sessionId":
			p.sdkID = sc.String()
		case "agent":
			p.agent = sc.String()
		default:
			return false
		}
		return true
	})
	if !ok && sc.Err() == nil {
		p.warn("a file that is not a JSON object")
	}
	p.broken()
}

// broken counts a file whose JSON ends or breaks before its end: a file
// being rewritten, or damaged. The messages read before stay.
func (p *parser) broken() {
	if p.sc.Err() != nil && !p.warned {
		p.warned = true
		p.warn("a file whose JSON breaks off or is invalid after its readable messages (being rewritten?)")
	}
}

// readArray reads the array of messages the scanner is at.
func (p *parser) readArray() {
	sc := &p.sc
	if sc.Kind() != '[' {
		sc.Skip()
		p.warn("messages that are not a JSON array")
		return
	}
	sc.Array(func() {
		if sc.Kind() != '{' {
			sc.Skip()
			p.warn("entries that are not messages")
			return
		}
		start := sc.Pos()
		var m message
		sc.Object(func(key []byte) bool {
			switch string(key) {
			case "role":
				m.Role = sc.String()
			case "content":
				m.Content = readBlocks(sc, p.data)
			case "ts":
				m.TS = sc.Int()
			case "type":
				m.Type = sc.String()
			case "isSummary":
				m.IsSummary = sc.Bool()
			case "isTruncationMarker":
				m.IsTruncationMarker = sc.Bool()
			default:
				return false
			}
			return true
		})
		if sc.Err() == nil {
			p.message(&m, p.line(start))
		}
	})
	p.broken()
}

// readBlocks reads a content value: a string is one text block, an array
// holds blocks (elements that are not objects are skipped), anything else
// is empty.
func readBlocks(sc *jsonscan.Scanner, data []byte) []block {
	switch sc.Kind() {
	case '"':
		return []block{{Type: "text", Text: sc.String()}}
	case '[':
	default:
		sc.Skip()
		return nil
	}
	var out []block
	sc.Array(func() {
		var b block
		if !sc.Object(func(key []byte) bool {
			switch string(key) {
			case "type":
				b.Type = sc.String()
			case "text":
				b.Text = sc.String()
			case "name":
				b.Name = sc.String()
			case "path":
				b.Path = sc.String()
			case "input":
				b.Input = rawValue(sc, data)
			case "content":
				b.Content = rawValue(sc, data)
			case "id":
				b.ID = sc.String()
			case "tool_use_id":
				b.ToolUseID = sc.String()
			case "is_error":
				if k := sc.Kind(); k != 't' && k != 'f' {
					return false
				}
				e := sc.Bool()
				b.IsError = &e
			default:
				return false
			}
			return true
		}) {
			return
		}
		out = append(out, b)
	})
	return out
}

// rawValue passes over the next value and returns its bytes.
func rawValue(sc *jsonscan.Scanner, data []byte) []byte {
	sc.Kind()
	start := sc.Pos()
	sc.Skip()
	if sc.Err() != nil || sc.Pos() > len(data) {
		return nil
	}
	return data[start:sc.Pos()]
}

// message adds one message's prompts, prose and records.
func (p *parser) message(m *message, line int) {
	at := msTime(m.TS)
	blocks := m.Content
	switch m.Role {
	case "user":
		if m.IsTruncationMarker {
			return
		}
		var typed, files []string
		for i := range blocks {
			if b := &blocks[i]; b.Type == "tool_result" {
				p.result(b)
			}
			if t := p.userText(&blocks[i], line); t != "" {
				typed = append(typed, t)
			}
			if b := &blocks[i]; b.Type == "file" && b.Path != "" {
				files = append(files, b.Path)
			}
		}
		files = append(files, p.attached...)
		p.attached = p.attached[:0]
		if len(typed) > 0 {
			p.session.Messages = append(p.session.Messages, harness.Message{Role: harness.User, Text: strings.Join(typed, "\n\n"), Turn: p.turn, Line: line, Time: at})
			p.turn++
		}
		// A file the user attached with @ belongs to the prompt it came with.
		for _, f := range files {
			p.record(harness.FileRecord, f, harness.Added, p.turn-1, line)
		}
	case "assistant":
		if m.IsSummary || m.Type == "reasoning" {
			return
		}
		var said []string
		for i := range blocks {
			b := &blocks[i]
			switch b.Type {
			case "text":
				if t := prose(b.Text); t != "" {
					said = append(said, t)
				}
			case "tool_use":
				p.toolUses++
				start := len(p.session.Records)
				p.toolRecords(b.Name, b.Input, line)
				if n := len(p.session.Records) - start; n > 0 && b.ID != "" {
					if p.pending == nil {
						p.pending = map[string]callRecords{}
					}
					p.pending[b.ID] = callRecords{start, n}
				}
				if field, ok := spoken[b.Name]; ok {
					for _, t := range fields(b.Input, field)[field] {
						if t = strings.TrimSpace(t); t != "" {
							said = append(said, t)
						}
					}
				}
			}
		}
		if len(said) > 0 {
			p.session.Messages = append(p.session.Messages, harness.Message{Role: harness.Assistant, Text: strings.Join(said, "\n\n"), Turn: p.turn - 1, Line: line, Time: at})
		}
	default:
		p.warn("messages of an unknown role")
	}
}

// userText returns what the user typed in one block of a user message.
// In a task folder's history only the text inside the wrappers the
// extension puts around typed text counts (see typed); the rest is tool
// output and injected context. In the SDK store a text block is what the
// user typed, less any environment_details block.
func (p *parser) userText(b *block, line int) string {
	switch b.Type {
	case "text":
		if p.legacy {
			if name, value, ok := toolHeader(b.Text); ok {
				if r, ok := headerRecord(name, value); ok {
					r.Turn, r.Line = p.turn-1, line
					p.headers = append(p.headers, r)
				}
			}
			t := typed(b.Text)
			if t != "" {
				p.attached = append(p.attached, mentioned(b.Text)...)
			}
			return t
		}
		t, files := sdkTyped(b.Text)
		p.attached = append(p.attached, files...)
		return t
	case "tool_result":
		if !p.legacy {
			return ""
		}
		// Roo Code's native tool calls answer in tool_result blocks; a
		// follow-up answer or feedback sits in their text.
		var out []string
		for _, t := range resultTexts(b.Content) {
			if s := typedResult(t); s != "" {
				out = append(out, s)
			}
		}
		return strings.Join(out, "\n\n")
	}
	return ""
}

// record adds a record, its value bounded and on one line.
func (p *parser) record(kind harness.RecordKind, value string, action harness.FileAction, turn, line int) {
	value = strings.TrimSpace(value)
	if value == "" || (kind == harness.FileRecord && strings.ContainsAny(value, "\n\r\x00")) {
		return
	}
	if len(value) > maxValue {
		value = strings.ToValidUTF8(value[:maxValue], "")
	}
	p.session.Records = append(p.session.Records, harness.Record{Kind: kind, Value: value, Action: action, Turn: turn, Line: line})
}

// finish names the session and fills in what the side files say.
func (p *parser) finish(opts harness.ParseOptions) {
	s := &p.session
	if p.legacy && p.toolUses == 0 {
		for _, r := range p.headers {
			p.record(r.Kind, r.Value, r.Action, r.Turn, r.Line)
		}
	}
	if len(s.Messages) == 0 && len(s.Records) == 0 {
		p.flushWarnings()
		return
	}
	if s.ID == "" {
		p.warn("a history whose session has no id (name the file by its task folder)")
		p.flushWarnings()
		return
	}
	s.Ordinal = max(opts.FirstOrdinal, 1)
	s.Offset, s.End = 0, int64(len(p.data))
	if opts.Offset > 0 {
		s.Offset, s.End = opts.Offset, opts.Offset+int64(len(p.data))
	}
	if s.Started.IsZero() {
		for _, m := range s.Messages {
			if !m.Time.IsZero() {
				s.Started = m.Time
				break
			}
		}
	}
	if s.Project == "" {
		s.Project = projectFromText(p.data)
	}
	for i := range s.Records {
		if r := &s.Records[i]; r.Kind == harness.FileRecord {
			r.Value = harness.RelPath(s.Project, r.Value)
		}
	}
	p.flushWarnings()
	p.h.Sessions = append(p.h.Sessions, *s)
}

func (p *parser) flushWarnings() {
	for what, n := range p.skipped {
		p.h.Warnings = append(p.h.Warnings, harness.SkippedLine(n, what))
	}
	sortStrings(p.h.Warnings)
}

// legacySession names a task folder's session from its path:
// <globalStorage>/<extension>/tasks/<task id>/api_conversation_history.json.
// The extension folder gives the ID's prefix; Roo Code's and Kilo Code's
// history_item.json gives the parent task, the workspace and the start. A
// file exported under another name (<…>_1769053680585_api_conversation_history.json)
// takes the task id from the last run of ten or more digits in its name.
func legacySession(path string) harness.Session {
	var s harness.Session
	if path == "" {
		return s
	}
	dir := filepath.Dir(path)
	task := filepath.Base(dir)
	if name := filepath.Base(path); name != legacyFile {
		task = lastDigits(strings.TrimSuffix(name, legacyFile))
	}
	if !harness.IsToken(task) && !harness.IsUUID(task) {
		return s
	}
	prefix := ""
	switch strings.ToLower(filepath.Base(filepath.Dir(filepath.Dir(dir)))) {
	case rooExt:
		prefix = rooPrefix
	case kiloExt:
		prefix = kiloPrefix
	}
	s.ID = IDPrefix + prefix + task
	// Cline's task ids are the task's start in epoch milliseconds.
	if prefix == "" && len(task) == 13 {
		if ms, err := strconv.ParseInt(task, 10, 64); err == nil {
			s.Started = time.UnixMilli(ms)
		}
	}
	var item struct {
		ParentTaskID string  `json:"parentTaskId"`
		Workspace    string  `json:"workspace"`
		TS           float64 `json:"ts"`
	}
	if readSide(filepath.Join(dir, "history_item.json"), &item) {
		if item.ParentTaskID != "" && (harness.IsToken(item.ParentTaskID) || harness.IsUUID(item.ParentTaskID)) {
			s.Parent = IDPrefix + prefix + item.ParentTaskID
			s.Subagent = true
		}
		if filepath.IsAbs(item.Workspace) || isWindowsAbs(item.Workspace) {
			s.Project = item.Workspace
		}
		if t := msTime(int64(item.TS)); !t.IsZero() {
			s.Started = t
		}
	}
	return s
}

// sdkSession names an SDK session from its path and the file's own
// sessionId and agent: sessions/<id>/<id>.messages.json is session
// cline-<id>, whose manifest <id>.json beside it holds the cwd, the start
// and the session it was forked from. A transcript whose agent is
// "subagent" or "teammate" and whose file is <agent>.messages.json in
// another session's folder is cline-<id>.<agent>, linked to that session.
func sdkSession(path, sessionID, agent string) harness.Session {
	var s harness.Session
	dir, stem := "", ""
	if path != "" {
		dir = filepath.Dir(path)
		stem = strings.TrimSuffix(filepath.Base(path), sdkSuffix)
	}
	folder := filepath.Base(dir)
	sub := agent == "subagent" || agent == "teammate"
	switch {
	case sub && dir != "" && stem != folder && harness.IsToken(folder) && harness.IsToken(stem):
		s.ID = IDPrefix + folder + "." + stem
		s.Parent = IDPrefix + folder
		s.Subagent = true
		return s
	case harness.IsToken(sessionID):
		s.ID = IDPrefix + sessionID
	case dir != "" && stem == folder && harness.IsToken(folder):
		s.ID = IDPrefix + folder
	default:
		return s
	}
	s.Subagent = sub
	if dir == "" {
		return s
	}
	id := strings.TrimPrefix(s.ID, IDPrefix)
	var man struct {
		CWD           string `json:"cwd"`
		WorkspaceRoot string `json:"workspace_root"`
		StartedAt     string `json:"started_at"`
		Metadata      struct {
			Fork struct {
				From string `json:"forkedFromSessionId"`
			} `json:"fork"`
		} `json:"metadata"`
	}
	if readSide(filepath.Join(dir, id+".json"), &man) {
		for _, p := range []string{man.CWD, man.WorkspaceRoot} {
			if filepath.IsAbs(p) || isWindowsAbs(p) {
				s.Project = p
				break
			}
		}
		if t, err := time.Parse(time.RFC3339Nano, man.StartedAt); err == nil {
			s.Started = t
		}
		if from := man.Metadata.Fork.From; !s.Subagent && from != "" && harness.IsToken(from) {
			s.Parent = IDPrefix + from
		}
	}
	return s
}

// readSide decodes a small JSON file beside a history into v.
func readSide(path string, v any) bool {
	f, err := harness.OpenSide(path)
	if err != nil {
		return false
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxSide+1))
	if err != nil || len(data) > maxSide {
		return false
	}
	return json.Unmarshal(data, v) == nil
}

// isWindowsAbs reports a Windows absolute path (C:\…) on any system.
func isWindowsAbs(p string) bool {
	return len(p) >= 3 && (p[0]|0x20 >= 'a' && p[0]|0x20 <= 'z') && p[1] == ':' && (p[2] == '\\' || p[2] == '/')
}

// msTime reads a ts field, epoch milliseconds; 0 and values past the
// year 5000 are no time.
func msTime(ms int64) time.Time {
	if ms <= 0 || ms > 1e14 {
		return time.Time{}
	}
	return time.UnixMilli(ms)
}

// resultTexts returns the texts of a tool_result's content: a string, or
// text blocks.
func resultTexts(raw []byte) []string {
	var sc jsonscan.Scanner
	sc.Reset(raw)
	blocks := readBlocks(&sc, raw)
	var out []string
	for _, b := range blocks {
		if b.Type == "text" && b.Text != "" {
			out = append(out, b.Text)
		}
	}
	return out
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// lastDigits returns the last run of ten or more digits in s, "" if none.
func lastDigits(s string) string {
	end := -1
	for i := len(s) - 1; i >= 0; i-- {
		isDigit := '0' <= s[i] && s[i] <= '9'
		switch {
		case isDigit && end < 0:
			end = i + 1
		case !isDigit && end >= 0:
			if end-i-1 >= 10 {
				return s[i+1 : end]
			}
			end = -1
		}
	}
	if end >= 10 {
		return s[:end]
	}
	return ""
}
