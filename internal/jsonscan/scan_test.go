package jsonscan

import (
	"encoding/json"
	"testing"
)

// FuzzScan checks the scanner against encoding/json: a string it decodes
// is the one encoding/json decodes, and a value encoding/json accepts is
// walked whole without error.
func FuzzScan(f *testing.F) {
	for _, s := range []string{`"a\"b\\c\u00e9\ud83d\ude00\n"`, `{"a":[1,2,{"b":null}],"c":true}`, `"\ud800x"`, `[]`, `{"x":"}"}`, `-1.5e3`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var want any
		valid := json.Unmarshal(data, &want) == nil
		sc := New(data)
		if str, ok := want.(string); valid && ok {
			if got := sc.String(); got != str {
				t.Fatalf("String() = %q, encoding/json says %q", got, str)
			}
		} else {
			sc.Skip()
		}
		if valid && !sc.End() {
			t.Fatalf("valid JSON %q not walked whole: err %v at %d", data, sc.Err(), sc.Pos())
		}
	})
}

func TestObjectFields(t *testing.T) {
	sc := New([]byte(`{"skip":{"deep":["x\"}",1]},"want":"v\u0041","n":42,"b":true}`))
	got := map[string]any{}
	ok := sc.Object(func(key []byte) bool {
		switch string(key) {
		case "want":
			got["want"] = sc.String()
		case "n":
			got["n"] = sc.Int()
		case "b":
			got["b"] = sc.Bool()
		default:
			return false
		}
		return true
	})
	if !ok || !sc.End() || got["want"] != "vA" || got["n"] != int64(42) || got["b"] != true {
		t.Errorf("ok %v end %v got %v", ok, sc.End(), got)
	}
	for _, bad := range []string{`{"a":`, `{"a" 1}`, `{"a":1,}`, `[1 2]`, `"open`, `{"a":tru}`} {
		sc := New([]byte(bad))
		sc.Skip()
		if sc.Err() == nil {
			t.Errorf("%s walked without error", bad)
		}
	}
}
