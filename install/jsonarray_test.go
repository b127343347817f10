package install

import "testing"

// TestJSONAppendDrop: deja's hook goes to the end of the event's array
// (made when missing), once; dropping it gives back the bytes that were
// there, also when the array was empty or someone added a hook after
// deja's.
func TestJSONAppendDrop(t *testing.T) {
	path := []string{"hooks", "UserPromptSubmit"}
	g := hookGroup{Hooks: []hookCommand{{Type: "command", Command: "deja hook claude-code", Timeout: 5}}}
	for name, src := range map[string]string{
		"empty file":   "",
		"no hooks":     "{\n  \"theme\": \"dark\"\n}\n",
		"empty array":  "{\n  \"hooks\": {\n    \"UserPromptSubmit\": []\n  }\n}\n",
		"other hook":   "{\"hooks\": {\"UserPromptSubmit\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"x\"}]}]}}",
		"jsonc inline": "{\n  // mine\n  \"hooks\": {\"UserPromptSubmit\": [1, 2]}\n}\n",
	} {
		t.Run(name, func(t *testing.T) {
			out, err := jsonAppend([]byte(src), true, path, g)
			if err != nil {
				t.Fatal(err)
			}
			if err := jsonValid(out, true); err != nil {
				t.Fatalf("not JSON after append: %v\n%s", err, out)
			}
			again, _ := jsonAppend(out, true, path, g)
			if string(again) != string(out) {
				t.Errorf("a second append changed the file:\n%s", again)
			}
			back, err := jsonDrop(out, true, path, g)
			if err != nil {
				t.Fatal(err)
			}
			if src == "" || name == "empty array" {
				// An array or file deja made, or left empty, goes.
				if err := jsonValid(back, true); err != nil && len(back) > 0 {
					t.Fatalf("not JSON after drop: %v\n%s", err, back)
				}
				return
			}
			if string(back) != src {
				t.Errorf("drop did not give back the file:\n%s\nwant:\n%s", back, src)
			}
		})
	}
	// Someone appended after deja: deja's goes, theirs stays.
	src := "{\"hooks\": {\"UserPromptSubmit\": [1]}}"
	out, _ := jsonAppend([]byte(src), false, path, g)
	out = []byte(string(out[:len(out)-3]) + ", 3]}}")
	back, err := jsonDrop(out, false, path, g)
	if err != nil || string(back) != "{\"hooks\": {\"UserPromptSubmit\": [1, 3]}}" {
		t.Errorf("drop from the middle: %v\n%s", err, back)
	}
}
