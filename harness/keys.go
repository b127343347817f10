package harness

import (
	"bytes"

	"github.com/deja-dev/deja/internal/jsonscan"
)

// Readers recognise a line by its JSON structure, never by its bytes as
// one writer lays them out: a line written with spaces after its colons
// and commas, or its keys in another order, is the same line (a Codex
// rollout written with `": "` once lost every message).

// TopKeys reports, for each of keys, whether the JSON object that data
// opens with holds it at its top level. An object cut short (the head of
// a long line) gives the keys before the cut.
func TopKeys(data []byte, keys ...string) []bool {
	held := make([]bool, len(keys))
	s := jsonscan.New(data)
	s.Object(func(key []byte) bool {
		for i, k := range keys {
			if string(key) == k {
				held[i] = true
			}
		}
		return false
	})
	return held
}

// HasKey reports whether a JSON line holds key as an object key at any
// depth: the quoted name, then a colon, with any whitespace between. A
// string value cannot hold it: its quotes would be escaped. It finds a
// kind of line without decoding it, whatever its size.
func HasKey(line []byte, key string) bool {
	quoted := []byte(`"` + key + `"`)
	for at := 0; ; {
		i := bytes.Index(line[at:], quoted)
		if i < 0 {
			return false
		}
		i += at
		at = i + len(quoted)
		if escaped(line, i) {
			continue
		}
		rest := bytes.TrimLeft(line[at:], " \t\r\n")
		if len(rest) > 0 && rest[0] == ':' {
			return true
		}
	}
}

// escaped reports whether the byte at i follows an odd run of backslashes.
func escaped(b []byte, i int) bool {
	n := 0
	for i > 0 && b[i-1] == '\\' {
		n++
		i--
	}
	return n%2 == 1
}

// AnyValue reports whether some string value of key in a JSON line, at
// any depth, is one want accepts, reading only the values after the key
// (the line is not decoded: a tool's answer may be megabytes). Values
// with escapes are read up to their first quote, which is enough for the
// ids agents give tool calls (toolu_…, call_…), which hold none.
func AnyValue(line []byte, key string, want func(string) bool) bool {
	quoted := []byte(`"` + key + `"`)
	for at := 0; ; {
		i := bytes.Index(line[at:], quoted)
		if i < 0 {
			return false
		}
		i += at
		at = i + len(quoted)
		if escaped(line, i) {
			continue
		}
		rest := bytes.TrimLeft(line[at:], " \t\r\n")
		if len(rest) == 0 || rest[0] != ':' {
			continue
		}
		rest = bytes.TrimLeft(rest[1:], " \t\r\n")
		if len(rest) == 0 || rest[0] != '"' {
			continue
		}
		end := bytes.IndexByte(rest[1:], '"')
		if end < 0 {
			return false
		}
		if want(string(rest[1 : 1+end])) {
			return true
		}
		at = len(line) - len(rest) + 1 + end
	}
}
