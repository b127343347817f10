package install

import (
	"bytes"
	"fmt"
	"strings"
)

// An element is one value of a JSON array, as byte offsets.
type element struct {
	start, end int
	comma      int // the comma after the value, -1 when none
}

// elements lists the values of the array whose '[' is at open, and
// returns the offset of its ']'.
func (s *jsonScanner) elements(open int) ([]element, int, error) {
	s.i = open + 1
	var es []element
	for {
		if err := s.space(); err != nil {
			return nil, 0, err
		}
		if s.i < len(s.b) && s.b[s.i] == ']' {
			return es, s.i, nil
		}
		e := element{start: s.i, comma: -1}
		if err := s.value(0); err != nil {
			return nil, 0, err
		}
		e.end = s.i
		if err := s.space(); err != nil {
			return nil, 0, err
		}
		if s.i < len(s.b) && s.b[s.i] == ',' {
			e.comma = s.i
			s.i++
		}
		es = append(es, e)
		if e.comma < 0 {
			if err := s.space(); err != nil {
				return nil, 0, err
			}
			if s.i >= len(s.b) || s.b[s.i] != ']' {
				return nil, 0, s.errorf("expected ',' or ']' in an array")
			}
			return es, s.i, nil
		}
	}
}

// findArray returns the offset of the '[' of the array at path in src,
// -1 when some member of path is missing.
func findArray(src []byte, jsonc bool, path []string) (*jsonDoc, int, error) {
	d, obj, err := newJSONDoc(src, jsonc)
	if err != nil {
		return nil, 0, err
	}
	for depth, name := range path {
		ms, _, err := d.s.members(obj)
		if err != nil {
			return nil, 0, err
		}
		idx := -1
		for i := range ms {
			if ms[i].key == name {
				idx = i
			}
		}
		if idx < 0 {
			return d, -1, nil
		}
		want := byte('{')
		if depth == len(path)-1 {
			want = '['
		}
		if src[ms[idx].valStart] != want {
			return nil, 0, fmt.Errorf("%q is not an %s; fix it by hand", strings.Join(path[:depth+1], "."), map[byte]string{'{': "object", '[': "array"}[want])
		}
		obj = ms[idx].valStart
	}
	return d, obj, nil
}

// jsonAppend adds v to the end of the array at path in src, creating the
// array (and the objects on its way) when missing, and splicing bytes so
// everything else stays. src unchanged is returned when the array holds
// v already.
func jsonAppend(src []byte, jsonc bool, path []string, v any) ([]byte, error) {
	if len(bytes.TrimSpace(src)) == 0 {
		return jsonAdd(src, jsonc, path[:len(path)-1], path[len(path)-1], []any{v})
	}
	d, open, err := findArray(src, jsonc, path)
	if err != nil {
		return nil, err
	}
	if open < 0 {
		return jsonAdd(src, jsonc, path[:len(path)-1], path[len(path)-1], []any{v})
	}
	es, closeAt, err := d.s.elements(open)
	if err != nil {
		return nil, err
	}
	for _, e := range es {
		same, err := jsonEqual(src[e.start:e.end], jsonc, v)
		if err != nil {
			return nil, err
		}
		if same {
			return src, nil
		}
	}
	if len(es) == 0 {
		outer := lineIndent(src, open)
		text, err := render(v, outer+d.unit, d.unit)
		if err != nil {
			return nil, err
		}
		return splice(src, open+1, closeAt, "\n"+outer+d.unit+text+"\n"+outer), nil
	}
	last := es[len(es)-1]
	ws := string(src[max(lead(src, last.start), open+1):last.start])
	ind := lineIndent(src, last.start)
	if !strings.Contains(ws, "\n") {
		ind = lineIndent(src, open)
	}
	text, err := render(v, ind, d.unit)
	if err != nil {
		return nil, err
	}
	return splice(src, last.end, last.end, ","+ws+text), nil
}

// jsonDrop takes v out of the array at path as jsonAppend put it in: the
// array goes too when v was all it held (with the objects it leaves
// empty). src unchanged is returned when the array does not hold v.
func jsonDrop(src []byte, jsonc bool, path []string, v any) ([]byte, error) {
	if len(bytes.TrimSpace(src)) == 0 {
		return src, nil
	}
	d, open, err := findArray(src, jsonc, path)
	if err != nil || open < 0 {
		return src, err
	}
	es, _, err := d.s.elements(open)
	if err != nil {
		return nil, err
	}
	for i, e := range es {
		same, err := jsonEqual(src[e.start:e.end], jsonc, v)
		if err != nil {
			return nil, err
		}
		if !same {
			continue
		}
		switch {
		case len(es) == 1:
			return jsonRemove(src, jsonc, path[:len(path)-1], path[len(path)-1])
		case i == len(es)-1:
			return splice(src, es[i-1].comma, e.end, ""), nil
		default:
			return splice(src, max(lead(src, e.start), open+1), e.comma+1, ""), nil
		}
	}
	return src, nil
}
