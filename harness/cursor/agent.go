package cursor

import (
	"context"
	"crypto/md5"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/internal/jsonscan"
)

// agentPrefix starts the ID of a cursor-agent CLI chat:
// cursor-agent-<agentId>.
const agentPrefix = IDPrefix + "agent-"

// agentStoreName is the file name of a cursor-agent chat store, kept at
// ~/.cursor/chats/<md5 of the cwd>/<agentId>/store.db.
const agentStoreName = "store.db"

// maxChatMessages bounds the messages a chat's root names.
const maxChatMessages = 1 << 16

// isAgentStore reports a path of a cursor-agent chat store's shape.
func isAgentStore(path string) bool {
	dir := filepath.Dir(path)
	return filepath.Base(path) == agentStoreName && harness.IsUUID(filepath.Base(dir)) && harness.IsHex(filepath.Base(filepath.Dir(dir)), 32)
}

// chatMeta is the JSON that meta key "0" holds, hex-encoded.
type chatMeta struct {
	AgentID string
	Root    string // latestRootBlobId: the sha256 of the chat's root blob
	Created int64  // createdAt, epoch milliseconds
}

// ReadAgentStore reads a cursor-agent CLI chat: one session. The store
// holds meta(key, value), whose key "0" is the hex of a JSON object
// naming the chat (agentId, latestRootBlobId, createdAt), and
// blobs(id, data), content-addressed by sha256: JSON messages
// ({role, content}) and protobuf nodes. The root blob's field 1 lists the
// chat's messages in order, each by the 32 bytes of its id. The marker is
// the root's id, which every new message changes.
//
// Messages carry no time: each is given the chat's createdAt, and a
// warning says so. The user's typed prompt is the text inside
// <user_query>; user messages without one (<user_info>, <git_status>) are
// the CLI's own context, whose "absolute path of the user's workspace"
// names the project.
func ReadAgentStore(ctx context.Context, path string, unchanged func(id, marker string) bool) (*harness.History, error) {
	return harness.ReadSQLite(ctx, path, "cursor", "a cursor-agent store.db", errNotPlain, func(tx *sql.Tx) (*harness.History, error) {
		return readAgentStore(ctx, tx, path, unchanged)
	})
}

func readAgentStore(ctx context.Context, tx *sql.Tx, path string, unchanged func(id, marker string) bool) (*harness.History, error) {
	for _, table := range []string{"meta", "blobs"} {
		ok, err := harness.PlainTable(ctx, tx, table, errNotPlain)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, fmt.Errorf("it has no %s table", table)
		}
	}
	h := &harness.History{Path: path}
	var metaHex []byte
	err := tx.QueryRowContext(ctx, `SELECT `+valueColumn+` FROM meta WHERE key = '0'`).Scan(&metaHex)
	if errors.Is(err, sql.ErrNoRows) {
		return h, nil
	}
	if err != nil {
		return nil, err
	}
	meta, ok := decodeChatMeta(metaHex)
	if !ok || !harness.IsHex(meta.Root, 64) {
		h.Warnings = append(h.Warnings, "skipped a chat whose meta is not hex-encoded JSON naming its root")
		return h, nil
	}
	id := agentPrefix + meta.AgentID
	if meta.AgentID == "" {
		id = agentPrefix + filepath.Base(filepath.Dir(path))
	}
	if unchanged != nil && unchanged(id, meta.Root) {
		h.Sessions = []harness.Session{{ID: id, Ordinal: 1, Marker: meta.Root}}
		return h, nil
	}
	blob := func(id string) ([]byte, error) {
		var v []byte
		err := tx.QueryRowContext(ctx, `SELECT `+dataColumn+` FROM blobs WHERE id = ?`, id).Scan(&v)
		if errors.Is(err, sql.ErrNoRows) {
			return nil, nil
		}
		return v, err
	}
	root, err := blob(meta.Root)
	if err != nil {
		return nil, err
	}
	skip := skipped{}
	var msgs []chatMessage
	for _, mid := range rootMessages(root) {
		data, err := blob(mid)
		if err != nil {
			return nil, err
		}
		if data == nil {
			skip.add("messages missing from the store or over the size bound")
			continue
		}
		m, ok := decodeChatMessage(data)
		if !ok {
			skip.add("messages whose data is not JSON")
			continue
		}
		msgs = append(msgs, m)
	}
	folder := filepath.Base(filepath.Dir(filepath.Dir(path)))
	s, warn := buildChat(id, folder, meta, msgs)
	s.Marker, s.Ordinal = meta.Root, 1
	if warn != "" && (Reader{}).ValidID(id) {
		h.Warnings = append(h.Warnings, warn)
	}
	h.Warnings = append(h.Warnings, skip.list()...)
	if len(s.Messages) > 0 {
		h.Sessions = []harness.Session{s}
	}
	return h, nil
}

// dataColumn selects a blob's data, or NULL when it is over
// harness.MaxLine.
var dataColumn = fmt.Sprintf(`CASE WHEN octet_length(data) <= %d THEN CAST(data AS BLOB) END`, harness.MaxLine)

// decodeChatMeta decodes meta key "0": the hex of a JSON object.
func decodeChatMeta(v []byte) (chatMeta, bool) {
	raw, err := hex.DecodeString(strings.TrimSpace(string(v)))
	if err != nil {
		return chatMeta{}, false
	}
	var m chatMeta
	sc := jsonscan.New(raw)
	ok := sc.Object(func(key []byte) bool {
		switch string(key) {
		case "agentId":
			m.AgentID = sc.String()
		case "latestRootBlobId":
			m.Root = sc.String()
		case "createdAt":
			m.Created = millis(sc)
		default:
			return false
		}
		return true
	})
	return m, ok && sc.Err() == nil
}

// rootMessages lists the message ids a root blob names in its field 1
// (each 32 bytes, written as hex), in order. Other fields, and anything
// after a field it cannot walk, are ignored.
func rootMessages(b []byte) []string {
	var out []string
	for len(b) > 0 && len(out) < maxChatMessages {
		key, n := uvarint(b)
		if n <= 0 {
			break
		}
		b = b[n:]
		field, wire := key>>3, key&7
		switch wire {
		case 0:
			_, n = uvarint(b)
			if n <= 0 {
				return out
			}
			b = b[n:]
		case 1:
			if len(b) < 8 {
				return out
			}
			b = b[8:]
		case 5:
			if len(b) < 4 {
				return out
			}
			b = b[4:]
		case 2:
			size, n := uvarint(b)
			if n <= 0 || size > uint64(len(b)-n) {
				return out
			}
			v := b[n : n+int(size)]
			b = b[n+int(size):]
			if field == 1 && len(v) == 32 {
				out = append(out, hex.EncodeToString(v))
			}
		default:
			return out
		}
	}
	return out
}

// uvarint reads a protobuf varint: its value and length, 0 or less when
// b holds none.
func uvarint(b []byte) (uint64, int) {
	var x uint64
	for i := 0; i < len(b) && i < 10; i++ {
		c := b[i]
		x |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			return x, i + 1
		}
	}
	return 0, 0
}

// chatMessage is one message of a chat: its role, its text and its tool
// calls.
type chatMessage struct {
	Role  string
	Text  string
	Tools []toolUse
}

// decodeChatMessage decodes a message blob: {role, content}, content a
// string or parts (text, tool-call with toolName and args, tool-result).
func decodeChatMessage(data []byte) (chatMessage, bool) {
	var m chatMessage
	sc := jsonscan.New(data)
	ok := sc.Object(func(key []byte) bool {
		switch string(key) {
		case "role":
			m.Role = sc.String()
		case "content":
			if sc.Kind() == '"' {
				m.Text = sc.String()
				return true
			}
			var texts []string
			sc.Array(func() {
				var typ, text string
				var t toolUse
				sc.Object(func(key []byte) bool {
					switch string(key) {
					case "type":
						typ = sc.String()
					case "text":
						text = sc.String()
					case "toolName":
						t.Name = sc.String()
					case "args":
						sc.Object(func(key []byte) bool { return t.Args.field(sc, key) })
					default:
						return false
					}
					return true
				})
				switch typ {
				case "text":
					if text != "" {
						texts = append(texts, text)
					}
				case "tool-call":
					if t.Name != "" {
						m.Tools = append(m.Tools, t)
					}
				}
			})
			m.Text = strings.Join(texts, "\n\n")
		default:
			return false
		}
		return true
	})
	return m, ok && sc.Err() == nil
}

// workspaceMarker opens the sentence of the CLI's <user_info> that names
// the project.
const workspaceMarker = "The absolute path of the user's workspace is "

// buildChat turns the messages of chat id into the neutral shape, with
// the warning that names its messages given the chat's start for a time.
// folder is the name of the chat's folder under chats/: the md5 of the
// path it ran in.
func buildChat(id, folder string, meta chatMeta, msgs []chatMessage) (harness.Session, string) {
	s := harness.Session{ID: id}
	if meta.Created > 0 {
		s.Started = time.UnixMilli(meta.Created).UTC()
	}
	for _, m := range msgs {
		if m.Role != "user" {
			continue
		}
		if info, ok := element(m.Text, "user_info"); ok {
			if _, rest, ok := strings.Cut(info, workspaceMarker); ok {
				if p := workspacePath(rest, folder); p != "" {
					s.Project = p
					break
				}
			}
		}
	}
	var tm timer
	tm.last = s.Started
	turn := -1
	seen := map[harness.Record]bool{}
	for i, m := range msgs {
		line := i + 1
		switch m.Role {
		case "user":
			q, ok := element(m.Text, "user_query")
			if !ok || trimmed(q) == "" {
				continue
			}
			turn++
			s.Messages = append(s.Messages, harness.Message{Role: harness.User, Text: trimmed(q), Turn: turn, Line: line, Time: tm.at(time.Time{}, line)})
		case "assistant":
			if text := trimmed(m.Text); text != "" {
				s.Messages = append(s.Messages, harness.Message{Role: harness.Assistant, Text: text, Turn: turn, Line: line, Time: tm.at(time.Time{}, line)})
			}
			for _, t := range m.Tools {
				for _, r := range toolRecords(t.Name, "", t.Args, s.Project) {
					r.Turn, r.Line = turn, line
					key := r
					key.Line = 0
					if !seen[key] {
						seen[key] = true
						s.Records = append(s.Records, r)
					}
				}
			}
		}
	}
	return s, tm.warning(id, "the chat's start (its createdAt)")
}

// workspacePath reads the path that opens rest, the text after
// workspaceMarker: up to the sentence's end (". ", or the line's end). A
// path may hold ". " itself, so the cut whose md5 is folder wins; the
// first cut else.
func workspacePath(rest, folder string) string {
	line, _, _ := strings.Cut(rest, "\n")
	line = strings.TrimSpace(line)
	var cuts []string
	for i := 0; i < len(line); i++ {
		if line[i] == '.' && (i+1 == len(line) || line[i+1] == ' ') {
			cuts = append(cuts, line[:i])
		}
	}
	cuts = append(cuts, line)
	for _, c := range cuts {
		if sum := md5.Sum([]byte(c)); hex.EncodeToString(sum[:]) == folder {
			return c
		}
	}
	if c := cuts[0]; strings.HasPrefix(c, "/") || filepath.IsAbs(c) {
		return c
	}
	return ""
}
