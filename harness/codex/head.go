package codex

import (
	"bytes"

	"github.com/deja-dev/deja/internal/jsonscan"
)

// What a rollout line is, read from its structure without decoding it
// (see harness.TopKeys). Codex writes compact JSON in one key order,
// {"timestamp":…,"type":"event_msg","payload":{"type":"user_message",…}},
// but a line written with spaces after its colons or its keys in another
// order is the same line: matching those bytes lost every message of a
// rollout written with `": "`.

// lineHead returns a line's type and its payload's type as written
// (escapes left in: no type Codex writes has one), nil where it has none.
// A line cut short (a head, a half-written last line) gives what comes
// before the cut. Nothing is allocated: it runs on every line.
func lineHead(raw []byte) (typ, payload []byte) {
	var s jsonscan.Scanner
	s.Reset(raw)
	s.Object(func(key []byte) bool {
		switch string(key) {
		case "type":
			typ = s.RawString()
		case "payload":
			s.Object(func(key []byte) bool {
				if string(key) != "type" {
					return false
				}
				payload = s.RawString()
				return true
			})
		default:
			return false
		}
		return true
	})
	return typ, payload
}

// hasUserEvents reports whether a rollout logs the user's messages as
// user_message events (§2.5). Only lines that mention the name are walked.
func hasUserEvents(data []byte) bool {
	name := []byte("user_message")
	for {
		i := bytes.Index(data, name)
		if i < 0 {
			return false
		}
		start := bytes.LastIndexByte(data[:i], '\n') + 1
		end := bytes.IndexByte(data[i:], '\n')
		if end < 0 {
			end = len(data)
		} else {
			end += i
		}
		if typ, payload := lineHead(data[start:end]); string(typ) == "event_msg" && string(payload) == "user_message" {
			return true
		}
		data = data[end:]
	}
}
