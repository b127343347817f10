package jsonscan

import (
	"bytes"
	"encoding/json"
	"errors"
)

// ErrSyntax is returned for input the scanner cannot walk.
var ErrSyntax = errors.New("jsonscan: invalid JSON")

// MaxDepth bounds nesting, so hostile input cannot exhaust the stack.
const MaxDepth = 512

// Scanner walks one JSON value. After an error every method is a no-op and
// Err reports it.
type Scanner struct {
	data  []byte
	pos   int
	depth int
	err   error
}

// New returns a Scanner at the start of data.
func New(data []byte) *Scanner { return &Scanner{data: data} }

// Reset starts the Scanner over on data, keeping nothing of the last walk.
func (s *Scanner) Reset(data []byte) { *s = Scanner{data: data} }

// Err is the first error met, nil when the walk was clean.
func (s *Scanner) Err() error { return s.err }

// Pos is the offset of the next byte to be read.
func (s *Scanner) Pos() int { return s.pos }

func (s *Scanner) fail() {
	if s.err == nil {
		s.err = ErrSyntax
	}
	s.pos = len(s.data)
}

func (s *Scanner) space() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\r', '\n':
			s.pos++
		default:
			return
		}
	}
}

// Kind returns the first byte of the next value ('{', '[', '"', 't', 'f',
// 'n', or a digit or '-'), or 0 at the end or after an error.
func (s *Scanner) Kind() byte {
	if s.err != nil {
		return 0
	}
	s.space()
	if s.pos >= len(s.data) {
		return 0
	}
	return s.data[s.pos]
}

// Object walks an object, calling field with each key (raw, unescaped
// only when it holds no escape). field must consume the value with one of
// the Scanner's methods, or return false to have it skipped. A value that
// is not an object is skipped and reported as false.
func (s *Scanner) Object(field func(key []byte) bool) bool {
	if s.Kind() != '{' {
		s.Skip()
		return false
	}
	if !s.enter() {
		return false
	}
	s.pos++
	if s.Kind() == '}' {
		s.pos++
		s.depth--
		return true
	}
	for s.err == nil {
		if s.Kind() != '"' {
			s.fail()
			return false
		}
		key := s.rawString()
		if s.Kind() != ':' {
			s.fail()
			return false
		}
		s.pos++
		if !field(key) {
			s.Skip()
		}
		switch s.Kind() {
		case ',':
			s.pos++
		case '}':
			s.pos++
			s.depth--
			return true
		default:
			s.fail()
		}
	}
	return false
}

// Array walks an array, calling elem for each element; elem must consume
// it (Skip, String, Object …). A value that is not an array is skipped and
// reported as false.
func (s *Scanner) Array(elem func()) bool {
	if s.Kind() != '[' {
		s.Skip()
		return false
	}
	if !s.enter() {
		return false
	}
	s.pos++
	if s.Kind() == ']' {
		s.pos++
		s.depth--
		return true
	}
	for s.err == nil {
		before := s.pos
		elem()
		if s.pos == before && s.err == nil {
			s.Skip()
		}
		switch s.Kind() {
		case ',':
			s.pos++
		case ']':
			s.pos++
			s.depth--
			return true
		default:
			s.fail()
		}
	}
	return false
}

func (s *Scanner) enter() bool {
	s.depth++
	if s.depth > MaxDepth {
		s.fail()
		return false
	}
	return true
}

// String returns the next value unescaped when it is a string, and skips
// it returning "" when it is not.
func (s *Scanner) String() string {
	if s.Kind() != '"' {
		s.Skip()
		return ""
	}
	raw := s.rawString()
	if s.err != nil {
		return ""
	}
	return Unescape(raw)
}

// Bool returns the next value when it is true or false, skipping any
// other value as false.
func (s *Scanner) Bool() bool {
	switch s.Kind() {
	case 't':
		return s.literal("true")
	case 'f':
		s.literal("false")
		return false
	}
	s.Skip()
	return false
}

// Int returns the next value when it is an integer (a JSON number with no
// fraction), skipping any other value as 0.
func (s *Scanner) Int() int64 {
	k := s.Kind()
	if k != '-' && (k < '0' || k > '9') {
		s.Skip()
		return 0
	}
	start := s.pos
	s.number()
	var n int64
	if json.Unmarshal(s.data[start:s.pos], &n) != nil {
		return 0
	}
	return n
}

// Skip passes over the next value, whatever it is.
func (s *Scanner) Skip() {
	switch s.Kind() {
	case 0:
		s.fail()
	case '"':
		s.rawString()
	case '{':
		s.Object(func([]byte) bool { return false })
	case '[':
		s.Array(s.Skip)
	case 't':
		s.literal("true")
	case 'f':
		s.literal("false")
	case 'n':
		s.literal("null")
	default:
		s.number()
	}
}

// rawString passes over a string at s.pos and returns its bytes between
// the quotes, escapes left in.
func (s *Scanner) rawString() []byte {
	start := s.pos + 1
	i := start
	for {
		j := bytes.IndexByte(s.data[i:], '"')
		if j < 0 {
			s.fail()
			return nil
		}
		i += j
		// A quote ends the string unless an odd run of backslashes
		// escapes it.
		n := 0
		for k := i - 1; k >= start && s.data[k] == '\\'; k-- {
			n++
		}
		if n%2 == 0 {
			s.pos = i + 1
			return s.data[start:i]
		}
		i++
	}
}

func (s *Scanner) literal(word string) bool {
	if !bytes.HasPrefix(s.data[s.pos:], []byte(word)) {
		s.fail()
		return false
	}
	s.pos += len(word)
	return true
}

func (s *Scanner) number() {
	start := s.pos
	for s.pos < len(s.data) {
		c := s.data[s.pos]
		if (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' {
			s.pos++
			continue
		}
		break
	}
	if s.pos == start {
		s.fail()
	}
}

// End reports whether only whitespace follows the walked value.
func (s *Scanner) End() bool {
	return s.Kind() == 0 && s.err == nil
}

// RawString returns the next value's bytes between its quotes, escapes
// left in, when it is a string (see Unescape); any other value is skipped
// and reported as nil. The bytes alias the input.
func (s *Scanner) RawString() []byte {
	if s.Kind() != '"' {
		s.Skip()
		return nil
	}
	return s.rawString()
}
