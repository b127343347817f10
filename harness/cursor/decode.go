package cursor

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/internal/jsonscan"
)

// composer is one IDE conversation: what deja keeps of a composerData
// value or of an allComposers element.
type composer struct {
	ID string
	// Created is createdAt, epoch milliseconds; 0 when absent. An old
	// chat panel tab has only lastSendTime, when it last sent, and
	// StartName says so.
	Created   int64
	StartName string
	// Headers are fullConversationHeadersOnly's bubble ids, in order.
	Headers []string
	// Conversation is the inline conversation (the 2024 layout), or the
	// bubbles in order once read.
	Conversation []bubble
	// Map is conversationMap: bubbles kept inline by bubble id.
	Map map[string]bubble
	// Marker is an inline conversation's marker (rawMarker).
	Marker string
}

// bubble is one message: a user's prompt (type 1) or an assistant's
// step (type 2), its prose and the tool it ran.
type bubble struct {
	Type int
	Text string
	// Time is createdAt, or timingInfo.clientRpcSendTime; zero when the
	// bubble has neither.
	Time time.Time
	Tool toolCall
	// Files are the files its code blocks were written for
	// (codeBlocks[].uri).
	Files []string
}

// toolCall is a bubble's toolFormerData: the tool's name, its status and
// the arguments deja reads.
type toolCall struct {
	Name   string
	Status string
	Args   toolArgs
}

// toolArgs are the arguments of the tools that name files or commands,
// from params or rawArgs (each a JSON object, or a string holding one).
type toolArgs struct {
	Command string
	Paths   []string
	// Old and New are a replacement's old_string and new_string, Contents
	// what a write wrote; nil where the call has none.
	Old, New, Contents *clippedText
}

// clippedText is a string argument cut to a span's bound as it is read,
// so that a large write's contents are never held whole.
type clippedText struct {
	Text string
	Cut  bool
}

// decodeInline decodes the 2024 layout's composer.composerData value into
// its conversations, each with the marker of its own bytes.
func decodeInline(v []byte, skip skipped) []composer {
	if v == nil {
		return nil
	}
	var out []composer
	sc := jsonscan.New(v)
	ok := sc.Object(func(key []byte) bool {
		if string(key) != "allComposers" {
			return false
		}
		sc.Array(func() {
			sc.Kind()
			start := sc.Pos()
			c, ok := decodeComposerAt(sc)
			if !ok {
				skip.add("conversations whose data is not a JSON object")
				return
			}
			c.Marker = rawMarker(v[start:sc.Pos()])
			out = append(out, c)
		})
		return true
	})
	if !ok || sc.Err() != nil {
		skip.add(inlineKey + " values that are not whole JSON")
	}
	return out
}

// decodePanel decodes the old chat panel's value,
// {tabs: [{tabId, chatTitle, lastSendTime, bubbles: [{type: "user"|"ai",
// text, …}]}]}, into conversations: each tab's id, its bubbles, its
// lastSendTime as Created, and the marker of its bytes.
func decodePanel(v []byte, skip skipped) []composer {
	var out []composer
	sc := jsonscan.New(v)
	ok := sc.Object(func(key []byte) bool {
		if string(key) != "tabs" {
			return false
		}
		sc.Array(func() {
			sc.Kind()
			start := sc.Pos()
			var c composer
			ok := sc.Object(func(key []byte) bool {
				switch string(key) {
				case "tabId":
					c.ID = sc.String()
				case "lastSendTime":
					c.Created, c.StartName = millis(sc), "the tab's last send (its lastSendTime)"
				case "bubbles":
					sc.Array(func() {
						if b, ok := decodeBubbleAt(sc); ok {
							c.Conversation = append(c.Conversation, b)
						}
					})
				default:
					return false
				}
				return true
			})
			if !ok {
				skip.add("chat panel tabs that are not JSON objects")
				return
			}
			c.Marker = rawMarker(v[start:sc.Pos()])
			out = append(out, c)
		})
		return true
	})
	if !ok || sc.Err() != nil {
		skip.add(panelKey + " values that are not whole JSON")
	}
	return out
}

// decodeComposer decodes one composerData value.
func decodeComposer(sc *jsonscan.Scanner, v []byte) (composer, bool) {
	sc.Reset(v)
	c, ok := decodeComposerAt(sc)
	return c, ok && sc.Err() == nil
}

func decodeComposerAt(sc *jsonscan.Scanner) (composer, bool) {
	var c composer
	ok := sc.Object(func(key []byte) bool {
		switch string(key) {
		case "composerId":
			c.ID = sc.String()
		case "createdAt":
			c.Created = millis(sc)
		case "conversation":
			sc.Array(func() {
				if b, ok := decodeBubbleAt(sc); ok {
					c.Conversation = append(c.Conversation, b)
				}
			})
		case "fullConversationHeadersOnly":
			sc.Array(func() {
				var id string
				sc.Object(func(key []byte) bool {
					if string(key) != "bubbleId" {
						return false
					}
					id = sc.String()
					return true
				})
				if id != "" {
					c.Headers = append(c.Headers, id)
				}
			})
		case "conversationMap":
			sc.Object(func(key []byte) bool {
				id := string(key)
				if b, ok := decodeBubbleAt(sc); ok {
					if c.Map == nil {
						c.Map = map[string]bubble{}
					}
					c.Map[id] = b
				}
				return true
			})
		default:
			return false
		}
		return true
	})
	return c, ok
}

// decodeBubble decodes one bubbleId value; false for one that is not a
// JSON object (JSON null included).
func decodeBubble(sc *jsonscan.Scanner, v []byte) (bubble, bool) {
	sc.Reset(v)
	b, ok := decodeBubbleAt(sc)
	return b, ok && sc.Err() == nil
}

func decodeBubbleAt(sc *jsonscan.Scanner) (bubble, bool) {
	var b bubble
	var rpc int64
	ok := sc.Object(func(key []byte) bool {
		switch string(key) {
		case "type":
			if sc.Kind() == '"' {
				// The old chat panel names its roles.
				switch sc.String() {
				case "user":
					b.Type = 1
				case "ai":
					b.Type = 2
				}
				return true
			}
			b.Type = int(sc.Int())
		case "text":
			b.Text = sc.String()
		case "createdAt":
			b.Time = anyTime(sc)
		case "timingInfo":
			sc.Object(func(key []byte) bool {
				if string(key) != "clientRpcSendTime" {
					return false
				}
				rpc = millis(sc)
				return true
			})
		case "toolFormerData":
			sc.Object(func(key []byte) bool { return b.Tool.field(sc, key) })
		case "codeBlocks":
			sc.Array(func() {
				sc.Object(func(key []byte) bool {
					if string(key) != "uri" {
						return false
					}
					if f := uriPath(sc); f != "" {
						b.Files = append(b.Files, f)
					}
					return true
				})
			})
		default:
			return false
		}
		return true
	})
	if b.Time.IsZero() && rpc > 0 {
		b.Time = time.UnixMilli(rpc).UTC()
	}
	return b, ok
}

func (t *toolCall) field(sc *jsonscan.Scanner, key []byte) bool {
	switch string(key) {
	case "name":
		t.Name = sc.String()
	case "status":
		t.Status = sc.String()
	case "params", "rawArgs":
		switch sc.Kind() {
		case '"':
			inner := jsonscan.New([]byte(sc.String()))
			inner.Object(func(key []byte) bool { return t.Args.field(inner, key) })
		case '{':
			sc.Object(func(key []byte) bool { return t.Args.field(sc, key) })
		default:
			return false
		}
	default:
		return false
	}
	return true
}

// field reads the argument named key: a command, or a path under any of
// the names Cursor's tools give it.
func (a *toolArgs) field(sc *jsonscan.Scanner, key []byte) bool {
	switch string(key) {
	case "command":
		if a.Command == "" {
			a.Command = sc.String()
			return true
		}
	case "target_file", "targetFile", "file_path", "filePath", "path", "relativeWorkspacePath", "relative_workspace_path", "target_notebook":
		if p := sc.String(); p != "" {
			a.Paths = append(a.Paths, p)
		}
		return true
	case "old_string":
		a.Old = clipped(sc)
		return true
	case "new_string":
		a.New = clipped(sc)
		return true
	case "contents":
		a.Contents = clipped(sc)
		return true
	}
	return false
}

// clipped reads a string argument; nil when it is no string.
func clipped(sc *jsonscan.Scanner) *clippedText {
	if sc.Kind() != '"' {
		sc.Skip()
		return nil
	}
	s, cut := harness.ClipSpan(sc.String())
	return &clippedText{s, cut}
}

// uriPath reads a VS Code URI object ({fsPath, path, external, scheme})
// or a URI string as a file path; "" for another scheme.
func uriPath(sc *jsonscan.Scanner) string {
	if sc.Kind() == '"' {
		return fileURIPath(sc.String())
	}
	var fsPath, path, scheme string
	sc.Object(func(key []byte) bool {
		switch string(key) {
		case "fsPath":
			fsPath = sc.String()
		case "path":
			path = sc.String()
		case "scheme":
			scheme = sc.String()
		default:
			return false
		}
		return true
	})
	if scheme != "" && scheme != "file" {
		return ""
	}
	if fsPath != "" {
		return fsPath
	}
	return uriPathToFile(path)
}

// millis reads epoch milliseconds written as an integer or a string of
// digits; 0 otherwise.
func millis(sc *jsonscan.Scanner) int64 {
	if sc.Kind() == '"' {
		n, _ := strconv.ParseInt(sc.String(), 10, 64)
		return max(n, 0)
	}
	return max(sc.Int(), 0)
}

// anyTime reads a time written as an RFC 3339 string or as epoch
// milliseconds; zero otherwise.
func anyTime(sc *jsonscan.Scanner) time.Time {
	if sc.Kind() == '"' {
		s := sc.String()
		if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
			return t.UTC()
		}
		if n, err := strconv.ParseInt(s, 10, 64); err == nil && n > 0 {
			return time.UnixMilli(n).UTC()
		}
		return time.Time{}
	}
	if n := millis(sc); n > 0 {
		return time.UnixMilli(n).UTC()
	}
	return time.Time{}
}

// skipped counts what a read left out, by kind, so a damaged store yields
// one warning per kind.
type skipped map[string]int

func (s skipped) add(what string) { s[what]++ }

func (s skipped) list() []string {
	var out []string
	for what, n := range s {
		out = append(out, fmt.Sprintf("skipped %s: %d", what, n))
	}
	sort.Strings(out)
	return out
}

// trimmed is s without surrounding space.
func trimmed(s string) string { return strings.TrimSpace(s) }
