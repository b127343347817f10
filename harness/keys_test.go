package harness

import "testing"

func TestHasKeyFindsKeysWhateverTheSpacing(t *testing.T) {
	for line, want := range map[string]bool{
		`{"content":[{"type":"tool_result","tool_use_id":"t1"}]}`:       true,
		`{ "content": [ { "tool_use_id" : "t1" } ] }`:                   true,
		"{\"tool_use_id\"\t:\"t1\"}":                                    true,
		`{"text":"the key \"tool_use_id\": is quoted here"}`:            false,
		`{"text":"tool_use_id"}`:                                        false,
		`{"a\\":"x","tool_use_id_2":1}`:                                 false,
		`{"text":"ends in a backslash \\","tool_use_id":"t1"}`:          true,
		`{"k":"v \"tool_use_id\"","tool_use_id"` + "\n" + `: "t1"}`:     true,
		`{"k":"a quote then the name \"tool_use_id","x":"tool_use_id"}`: false,
	} {
		if got := HasKey([]byte(line), "tool_use_id"); got != want {
			t.Errorf("HasKey(%s) = %v, want %v", line, got, want)
		}
	}
}

func TestTopKeysReadsTheTopLevelBeforeACut(t *testing.T) {
	line := `{ "b": {"a": 1}, "c" : "x", "d": "cut short here`
	got := TopKeys([]byte(line), "a", "b", "c", "d", "e")
	want := []bool{false, true, true, true, false}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("TopKeys(%s) = %v, want %v", line, got, want)
			break
		}
	}
}
