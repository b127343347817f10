package install

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
)

// A member is one "key": value pair of a JSON object, as byte offsets
// into the document.
type member struct {
	key      string
	keyStart int // the opening quote of the key
	valStart int
	valEnd   int // one past the value
	comma    int // the comma after the value, -1 when none
}

// jsonScanner walks a JSON document (comments allowed when jsonc) by
// offsets, so an edit can splice bytes and leave the rest as it was.
type jsonScanner struct {
	b     []byte
	i     int
	jsonc bool
}

func (s *jsonScanner) errorf(format string, args ...any) error {
	line := 1 + bytes.Count(s.b[:min(s.i, len(s.b))], []byte("\n"))
	return fmt.Errorf("line %d: %s", line, fmt.Sprintf(format, args...))
}

// space skips whitespace, and comments in JSONC.
func (s *jsonScanner) space() error {
	for s.i < len(s.b) {
		switch c := s.b[s.i]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			s.i++
		case s.jsonc && c == '/' && s.i+1 < len(s.b) && s.b[s.i+1] == '/':
			for s.i < len(s.b) && s.b[s.i] != '\n' {
				s.i++
			}
		case s.jsonc && c == '/' && s.i+1 < len(s.b) && s.b[s.i+1] == '*':
			end := bytes.Index(s.b[s.i+2:], []byte("*/"))
			if end < 0 {
				return s.errorf("a /* comment is not closed")
			}
			s.i += end + 4
		default:
			return nil
		}
	}
	return nil
}

// str reads a string at s.i and returns it decoded.
func (s *jsonScanner) str() (string, error) {
	start := s.i
	if s.i >= len(s.b) || s.b[s.i] != '"' {
		return "", s.errorf("expected a string")
	}
	s.i++
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case '\\':
			s.i += 2
			continue
		case '"':
			s.i++
			var v string
			if err := json.Unmarshal(s.b[start:s.i], &v); err != nil {
				return "", s.errorf("bad string: %v", err)
			}
			return v, nil
		}
		s.i++
	}
	return "", s.errorf("a string is not closed")
}

// value skips one value at s.i.
func (s *jsonScanner) value(depth int) error {
	if depth > 200 {
		return s.errorf("nested too deeply")
	}
	if s.i >= len(s.b) {
		return s.errorf("expected a value, found the end")
	}
	switch s.b[s.i] {
	case '"':
		_, err := s.str()
		return err
	case '{', '[':
		closer := byte('}')
		if s.b[s.i] == '[' {
			closer = ']'
		}
		obj := closer == '}'
		s.i++
		for {
			if err := s.space(); err != nil {
				return err
			}
			if s.i < len(s.b) && s.b[s.i] == closer {
				s.i++
				return nil
			}
			if obj {
				if _, err := s.str(); err != nil {
					return err
				}
				if err := s.space(); err != nil {
					return err
				}
				if s.i >= len(s.b) || s.b[s.i] != ':' {
					return s.errorf("expected ':'")
				}
				s.i++
				if err := s.space(); err != nil {
					return err
				}
			}
			if err := s.value(depth + 1); err != nil {
				return err
			}
			if err := s.space(); err != nil {
				return err
			}
			if s.i < len(s.b) && s.b[s.i] == ',' {
				s.i++
				continue
			}
			if s.i < len(s.b) && s.b[s.i] == closer {
				s.i++
				return nil
			}
			return s.errorf("expected ',' or '%c'", closer)
		}
	default:
		start := s.i
		for s.i < len(s.b) && !strings.ContainsRune(" \t\r\n,}]/", rune(s.b[s.i])) {
			s.i++
		}
		if s.i == start {
			return s.errorf("unexpected %q", s.b[s.i])
		}
		return nil
	}
}

// members lists the members of the object whose '{' is at open, and
// returns the offset of its '}'.
func (s *jsonScanner) members(open int) ([]member, int, error) {
	s.i = open + 1
	var ms []member
	for {
		if err := s.space(); err != nil {
			return nil, 0, err
		}
		if s.i < len(s.b) && s.b[s.i] == '}' {
			return ms, s.i, nil
		}
		m := member{keyStart: s.i, comma: -1}
		k, err := s.str()
		if err != nil {
			return nil, 0, err
		}
		m.key = k
		if err := s.space(); err != nil {
			return nil, 0, err
		}
		if s.i >= len(s.b) || s.b[s.i] != ':' {
			return nil, 0, s.errorf("expected ':' after %q", k)
		}
		s.i++
		if err := s.space(); err != nil {
			return nil, 0, err
		}
		m.valStart = s.i
		if err := s.value(0); err != nil {
			return nil, 0, err
		}
		m.valEnd = s.i
		if err := s.space(); err != nil {
			return nil, 0, err
		}
		if s.i < len(s.b) && s.b[s.i] == ',' {
			m.comma = s.i
			s.i++
		}
		ms = append(ms, m)
		if m.comma < 0 {
			if err := s.space(); err != nil {
				return nil, 0, err
			}
			if s.i >= len(s.b) || s.b[s.i] != '}' {
				return nil, 0, s.errorf("expected ',' or '}' after %q", k)
			}
			return ms, s.i, nil
		}
	}
}

// jsonDoc is a parsed view of an object document.
type jsonDoc struct {
	s    *jsonScanner
	unit string // one level of indentation
}

func newJSONDoc(src []byte, jsonc bool) (*jsonDoc, int, error) {
	s := &jsonScanner{b: src, jsonc: jsonc}
	if err := s.space(); err != nil {
		return nil, 0, err
	}
	root := s.i
	if root >= len(src) || src[root] != '{' {
		return nil, 0, s.errorf("the file is not a JSON object")
	}
	if err := s.value(0); err != nil {
		return nil, 0, err
	}
	end := s.i
	if err := s.space(); err != nil {
		return nil, 0, err
	}
	if s.i != len(src) {
		return nil, 0, s.errorf("unexpected text after the object")
	}
	_ = end
	d := &jsonDoc{s: s, unit: "  "}
	if ms, _, err := s.members(root); err == nil && len(ms) > 0 {
		if ind := lineIndent(src, ms[0].keyStart); ind != "" && lead(src, ms[0].keyStart) < ms[0].keyStart {
			d.unit = ind
		}
	}
	return d, root, nil
}

// lineIndent is the whitespace from the start of the line holding off up
// to the first non-blank byte.
func lineIndent(b []byte, off int) string {
	start := bytes.LastIndexByte(b[:off], '\n') + 1
	end := start
	for end < len(b) && (b[end] == ' ' || b[end] == '\t') {
		end++
	}
	return string(b[start:end])
}

// lead is where the whitespace before off begins: back over blanks, and
// over one line break when they start a line.
func lead(b []byte, off int) int {
	i := off
	for i > 0 && (b[i-1] == ' ' || b[i-1] == '\t') {
		i--
	}
	if i > 0 && b[i-1] == '\n' {
		i--
		if i > 0 && b[i-1] == '\r' {
			i--
		}
	}
	return i
}

// render formats v as JSON indented for a member whose line starts with
// indent.
func render(v any, indent, unit string) (string, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent(indent, unit)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimRight(buf.String(), "\n"), nil
}

// nest wraps v in objects keyed by path, innermost last.
func nest(path []string, key string, v any) any {
	out := any(orderedPair{key, v})
	for i := len(path) - 1; i >= 0; i-- {
		out = orderedPair{path[i], out}
	}
	return out
}

// orderedPair is a one-member object.
type orderedPair struct {
	k string
	v any
}

func (p orderedPair) MarshalJSON() ([]byte, error) {
	k, err := json.Marshal(p.k)
	if err != nil {
		return nil, err
	}
	v, err := json.Marshal(p.v)
	if err != nil {
		return nil, err
	}
	return append(append(append(append([]byte("{"), k...), ':'), v...), '}'), nil
}

// jsonAdd sets path.key to v in the object document src, splicing bytes
// so every other member, its order, comments and layout stay: a missing
// member goes first in its object. src unchanged is returned when the
// member already holds v.
func jsonAdd(src []byte, jsonc bool, path []string, key string, v any) ([]byte, error) {
	if len(bytes.TrimSpace(src)) == 0 {
		out, err := render(nest(path, key, v), "", "  ")
		if err != nil {
			return nil, err
		}
		return []byte(out + "\n"), nil
	}
	d, obj, err := newJSONDoc(src, jsonc)
	if err != nil {
		return nil, err
	}
	names := append(append([]string{}, path...), key)
	for depth, name := range names {
		ms, closeAt, err := d.s.members(obj)
		if err != nil {
			return nil, err
		}
		var found *member
		for i := range ms {
			if ms[i].key == name {
				found = &ms[i]
			}
		}
		if found != nil && depth < len(names)-1 {
			if src[found.valStart] != '{' {
				return nil, fmt.Errorf("%q is not an object; fix it by hand", strings.Join(names[:depth+1], "."))
			}
			obj = found.valStart
			continue
		}
		var val any = v
		if depth < len(names)-1 {
			val = nest(names[depth+1:len(names)-1], key, v)
		}
		if found != nil {
			same, err := jsonEqual(src[found.valStart:found.valEnd], jsonc, v)
			if err != nil {
				return nil, err
			}
			if same {
				return src, nil
			}
			text, err := render(v, lineIndent(src, found.keyStart), d.unit)
			if err != nil {
				return nil, err
			}
			return splice(src, found.valStart, found.valEnd, text), nil
		}
		k, _ := json.Marshal(name)
		if len(ms) > 0 {
			ld := lead(src, ms[0].keyStart)
			if ld < obj+1 {
				ld = obj + 1
			}
			ws := string(src[ld:ms[0].keyStart])
			ind := lineIndent(src, ms[0].keyStart)
			if !strings.Contains(ws, "\n") {
				ind = lineIndent(src, obj)
			}
			text, err := render(val, ind, d.unit)
			if err != nil {
				return nil, err
			}
			return splice(src, obj+1, obj+1, ws+string(k)+": "+text+","), nil
		}
		outer := lineIndent(src, obj)
		text, err := render(val, outer+d.unit, d.unit)
		if err != nil {
			return nil, err
		}
		ins := "\n" + outer + d.unit + string(k) + ": " + text
		if closeAt == obj+1 {
			ins += "\n" + outer
		}
		return splice(src, obj+1, obj+1, ins), nil
	}
	return src, nil
}

// jsonRemove takes path.key out of src as jsonAdd put it in, and the
// objects on path that it leaves empty. src unchanged is returned when
// there is no such member.
func jsonRemove(src []byte, jsonc bool, path []string, key string) ([]byte, error) {
	if len(bytes.TrimSpace(src)) == 0 {
		return src, nil
	}
	d, obj, err := newJSONDoc(src, jsonc)
	if err != nil {
		return nil, err
	}
	names := append(append([]string{}, path...), key)
	objs := []int{obj}
	for depth, name := range names {
		ms, _, err := d.s.members(obj)
		if err != nil {
			return nil, err
		}
		idx := -1
		for i := range ms {
			if ms[i].key == name {
				idx = i
			}
		}
		if idx < 0 {
			return src, nil
		}
		if depth < len(names)-1 {
			if src[ms[idx].valStart] != '{' {
				return src, nil
			}
			obj = ms[idx].valStart
			objs = append(objs, obj)
			continue
		}
		out := removeMember(src, obj, ms, idx)
		// Objects on the path left empty go too, innermost first.
		for level := len(objs) - 1; level > 0; level-- {
			d2, _, err := newJSONDoc(out, jsonc)
			if err != nil {
				return nil, err
			}
			o := objs[level]
			ms2, _, err := d2.s.members(o)
			if err != nil || len(ms2) > 0 {
				break
			}
			parent := objs[level-1]
			pms, _, err := d2.s.members(parent)
			if err != nil {
				return nil, err
			}
			for i := range pms {
				if pms[i].valStart == o {
					out = removeMember(out, parent, pms, i)
					break
				}
			}
		}
		return out, nil
	}
	return src, nil
}

// removeMember cuts ms[i] from the object at open, with the one comma
// that keeps the object well formed and the line it stood on.
func removeMember(src []byte, open int, ms []member, i int) []byte {
	m := ms[i]
	ld := max(lead(src, m.keyStart), open+1)
	switch {
	case m.comma >= 0:
		return splice(src, ld, m.comma+1, "")
	case i > 0:
		prev := ms[i-1].comma
		out := splice(src, ld, m.valEnd, "")
		return splice(out, prev, prev+1, "")
	default:
		out := splice(src, ld, m.valEnd, "")
		// What is left between the braces is the line break jsonAdd
		// put before the closing brace of an empty object.
		s := &jsonScanner{b: out}
		_, closeAt, err := s.members(open)
		if err == nil && string(out[open+1:closeAt]) == "\n"+lineIndent(out, open) {
			out = splice(out, open+1, closeAt, "")
		}
		return out
	}
}

func splice(b []byte, from, to int, text string) []byte {
	out := make([]byte, 0, len(b)-(to-from)+len(text))
	out = append(out, b[:from]...)
	out = append(out, text...)
	return append(out, b[to:]...)
}

// jsonEqual reports whether the JSON value raw equals v.
func jsonEqual(raw []byte, jsonc bool, v any) (bool, error) {
	if jsonc {
		raw = stripComments(raw)
	}
	var a, b any
	if err := json.Unmarshal(raw, &a); err != nil {
		return false, nil
	}
	want, err := json.Marshal(v)
	if err != nil {
		return false, err
	}
	if err := json.Unmarshal(want, &b); err != nil {
		return false, err
	}
	return reflect.DeepEqual(a, b), nil
}

// stripComments blanks JSONC comments and drops trailing commas so
// encoding/json can read the text.
func stripComments(b []byte) []byte {
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case c == '"':
			j := i + 1
			for j < len(b) && b[j] != '"' {
				if b[j] == '\\' {
					j++
				}
				j++
			}
			j = min(j, len(b)-1)
			out = append(out, b[i:j+1]...)
			i = j
		case c == '/' && i+1 < len(b) && b[i+1] == '/':
			for i < len(b) && b[i] != '\n' {
				i++
			}
			i--
		case c == '/' && i+1 < len(b) && b[i+1] == '*':
			end := bytes.Index(b[i+2:], []byte("*/"))
			if end < 0 {
				return out
			}
			i += end + 3
		case c == ',':
			j := i + 1
			for j < len(b) && strings.ContainsRune(" \t\r\n", rune(b[j])) {
				j++
			}
			if j < len(b) && (b[j] == '}' || b[j] == ']') {
				continue
			}
			out = append(out, c)
		default:
			out = append(out, c)
		}
	}
	return out
}

// jsonValid checks that b reads as JSON (JSONC when jsonc).
func jsonValid(b []byte, jsonc bool) error {
	if jsonc {
		b = stripComments(b)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	return nil
}
