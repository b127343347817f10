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

func TestAnyValueReadsOnlyTheKeysValues(t *testing.T) {
	line := []byte(`{"content":[{"type":"tool_result","tool_use_id" : "toolu_2","content":"\"tool_use_id\":\"toolu_1\""},{"tool_use_id":"toolu_3"}]}`)
	seen := map[string]bool{}
	AnyValue(line, "tool_use_id", func(id string) bool { seen[id] = true; return false })
	if !seen["toolu_2"] || !seen["toolu_3"] || seen["toolu_1"] || len(seen) != 2 {
		t.Errorf("values read: %v (an escaped key inside a string is no key)", seen)
	}
	if !AnyValue(line, "tool_use_id", func(id string) bool { return id == "toolu_3" }) {
		t.Error("toolu_3 not found")
	}
	if AnyValue([]byte(`{"tool_use_id": 7}`), "tool_use_id", func(string) bool { return true }) {
		t.Error("a number read as a string value")
	}
}
