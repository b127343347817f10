package jsonlimit

import (
	"bytes"
	"errors"
	"strconv"

	"github.com/segmentio/encoding/json"

	"github.com/deja-dev/deja/internal/jsonscan"
)

// MaxDepth is the deepest nesting decoded, jsonscan's bound, so that every
// reader refuses the same input. Agent records nest a dozen levels; a
// tool's arguments a few more.
const MaxDepth = jsonscan.MaxDepth

// ErrTooDeep is returned for input nested deeper than MaxDepth.
var ErrTooDeep = errors.New("nested deeper than " + strconv.Itoa(MaxDepth) + " levels")

// RawMessage is a raw encoded JSON value.
type RawMessage = json.RawMessage

// ParseFlags tune Parse.
type ParseFlags = json.ParseFlags

// ZeroCopy lets Parse's strings share the input's bytes.
const ZeroCopy = json.ZeroCopy

// Unmarshal is json.Unmarshal, refusing input nested deeper than MaxDepth.
func Unmarshal(data []byte, v any) error {
	if TooDeep(data) {
		return ErrTooDeep
	}
	return json.Unmarshal(data, v)
}

// ErrTrailing is returned for a value followed by more than white space.
var ErrTrailing = errors.New("data after the JSON value")

// Parse is json.Parse, refusing input nested deeper than MaxDepth and, as
// Unmarshal does, a value followed by anything but white space: a reader
// that took a line's first value would keep what a line's garbage follows
// (a header with "}}\"user\"}}}" after it), where Unmarshal refuses the line.
func Parse(data []byte, v any, flags json.ParseFlags) ([]byte, error) {
	if TooDeep(data) {
		return data, ErrTooDeep
	}
	rest, err := json.Parse(data, v, flags)
	if err == nil && len(bytes.TrimSpace(rest)) > 0 {
		return rest, ErrTrailing
	}
	return rest, err
}

// Valid is json.Valid, false for input nested deeper than MaxDepth.
func Valid(data []byte) bool { return !TooDeep(data) && json.Valid(data) }

// Problem names what is wrong with input a decode refused, as a reader's
// warning says it: "nested deeper than 512 levels" or "not valid JSON".
func Problem(err error) string {
	if errors.Is(err, ErrTooDeep) {
		return ErrTooDeep.Error()
	}
	return "not valid JSON"
}

// TooDeep reports whether data nests arrays and objects deeper than
// MaxDepth, brackets inside strings aside. It walks without recursion,
// and input with no more openers than MaxDepth is answered by counting
// them, so the check costs little beside the decode.
func TooDeep(data []byte) bool {
	if bytes.Count(data, []byte("["))+bytes.Count(data, []byte("{")) <= MaxDepth {
		return false
	}
	depth := 0
	for i := 0; i < len(data); i++ {
		switch data[i] {
		case '"':
			end, ok := stringEnd(data, i+1)
			if !ok {
				return false // unterminated: the decoder refuses it
			}
			i = end
		case '[', '{':
			if depth++; depth > MaxDepth {
				return true
			}
		case ']', '}':
			depth--
		}
	}
	return false
}

// stringEnd returns the index of the quote closing a string whose
// contents start at i.
func stringEnd(data []byte, i int) (int, bool) {
	for i < len(data) {
		j := bytes.IndexAny(data[i:], `"\`)
		if j < 0 {
			return 0, false
		}
		i += j
		if data[i] == '"' {
			return i, true
		}
		i += 2 // a backslash and the byte it escapes
	}
	return 0, false
}

// Marshal is json.Marshal; encoding follows only deja's own values.
func Marshal(v any) ([]byte, error) { return json.Marshal(v) }
