package jsonlimit

import (
	"errors"
	"strings"
	"testing"
)

func TestTooDeep(t *testing.T) {
	for _, tc := range []struct {
		name string
		data string
		deep bool
	}{
		{"at the bound", strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth), false},
		{"past the bound", strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1), true},
		{"objects", strings.Repeat(`{"a":`, MaxDepth+1) + "1" + strings.Repeat("}", MaxDepth+1), true},
		{"brackets in a string", `{"s":"` + strings.Repeat("[", 3*MaxDepth) + `"}`, false},
		{"escaped quote in a string", `{"s":"\"` + strings.Repeat("[", 3*MaxDepth) + `"}`, false},
		{"siblings, not nesting", strings.Repeat("[]", 3*MaxDepth), false},
		{"unclosed, two million", strings.Repeat("[", 2_000_000), true},
	} {
		if got := TooDeep([]byte(tc.data)); got != tc.deep {
			t.Errorf("%s: TooDeep = %v, want %v", tc.name, got, tc.deep)
		}
	}
}

// TestDecodersRefuseDeepNesting: segmentio/encoding recurses on nesting;
// two million levels ran the stack out (fatal, uncatchable) before the
// depth check.
func TestDecodersRefuseDeepNesting(t *testing.T) {
	deep := []byte(`{"type":"user","x":` + strings.Repeat("[", 2_000_000))
	var v struct {
		Type string     `json:"type"`
		X    RawMessage `json:"x"`
	}
	if err := Unmarshal(deep, &v); !errors.Is(err, ErrTooDeep) {
		t.Errorf("Unmarshal: %v, want ErrTooDeep", err)
	}
	if _, err := Parse(deep, &v, ZeroCopy); !errors.Is(err, ErrTooDeep) {
		t.Errorf("Parse: %v, want ErrTooDeep", err)
	}
	if Valid(deep) {
		t.Error("Valid: true for two million levels")
	}
	if got := Problem(ErrTooDeep); got != "nested deeper than 512 levels" {
		t.Errorf("Problem = %q", got)
	}
	if err := Unmarshal([]byte(`{"type":"user","x":[[1]]}`), &v); err != nil || v.Type != "user" {
		t.Errorf("shallow input: %v, %+v", err, v)
	}
}

// Parse refuses what Unmarshal refuses after a value: anything but white
// space, so that no reader keeps a line's first value and drops the rest.
func TestParseRefusesDataAfterTheValue(t *testing.T) {
	for _, c := range []struct {
		in string
		ok bool
	}{
		{`{"a":1}`, true},
		{"{\"a\":1} \t\r\n", true},
		{`{"a":1}}"user"}}}`, false},
		{`{"a":1}\n`, false},
		{`{"a":1} {"a":2}`, false},
		{`"s" x`, false},
	} {
		var v map[string]any
		var s string
		var err error
		if c.in[0] == '"' {
			_, err = Parse([]byte(c.in), &s, 0)
		} else {
			_, err = Parse([]byte(c.in), &v, 0)
		}
		if (err == nil) != c.ok {
			t.Errorf("Parse(%q) = %v, want accepted %v", c.in, err, c.ok)
		}
		if uerr := Unmarshal([]byte(c.in), new(any)); (uerr == nil) != (err == nil) {
			t.Errorf("Parse(%q) = %v but Unmarshal = %v", c.in, err, uerr)
		}
	}
}
