package install

import (
	"strings"
	"testing"
)

var dejaServer = map[string]any{"command": "/bin/deja", "args": []string{"mcp"}}

// TestJSONRoundTrip adds deja's member and takes it out again: the
// document comes back byte for byte, and a second add changes nothing.
func TestJSONRoundTrip(t *testing.T) {
	docs := map[string]string{
		"other server":  "{\n  \"mcpServers\": {\n    \"other\": {\"command\": \"x\"}\n  },\n  \"theme\": \"dark\"\n}\n",
		"no servers":    "{\n    \"theme\": \"dark\",\n    \"n\": 1\n}",
		"empty servers": "{\n  \"mcpServers\": {},\n  \"theme\": \"dark\"\n}\n",
		"empty root":    "{}\n",
		"one line":      `{"mcpServers":{"a":{"command":"a"}},"z":[1,2]}`,
		"tabs":          "{\n\t\"mcpServers\": {\n\t\t\"a\": {}\n\t}\n}\n",
		"jsonc":         "{\n  // my servers\n  \"mcpServers\": {\n    /* first */ \"a\": {\"command\": \"a\",},\n  },\n}\n",
	}
	for name, doc := range docs {
		t.Run(name, func(t *testing.T) {
			jsonc := name == "jsonc"
			added, err := jsonAdd([]byte(doc), jsonc, []string{"mcpServers"}, "deja", dejaServer)
			if err != nil {
				t.Fatal(err)
			}
			if err := jsonValid(added, jsonc); err != nil {
				t.Fatalf("added:\n%s\n%v", added, err)
			}
			if !strings.Contains(string(added), `"/bin/deja"`) {
				t.Fatalf("deja missing:\n%s", added)
			}
			again, err := jsonAdd(added, jsonc, []string{"mcpServers"}, "deja", dejaServer)
			if err != nil || string(again) != string(added) {
				t.Fatalf("second add changed the file (%v):\n%s", err, again)
			}
			back, err := jsonRemove(added, jsonc, []string{"mcpServers"}, "deja")
			if err != nil {
				t.Fatal(err)
			}
			want := doc
			if name == "empty servers" {
				// An mcpServers left empty goes, with deja's.
				want = "{\n  \"theme\": \"dark\"\n}\n"
			}
			if string(back) != want {
				t.Fatalf("after remove:\n%q\nwant\n%q\n(added was\n%s)", back, want, added)
			}
		})
	}
}

// TestJSONReplace rewrites a deja member that names another binary, in
// place, and leaves the others.
func TestJSONReplace(t *testing.T) {
	doc := "{\n  \"mcpServers\": {\n    \"a\": 1,\n    \"deja\": {\"command\": \"/old/deja\"},\n    \"b\": 2\n  }\n}\n"
	out, err := jsonAdd([]byte(doc), false, []string{"mcpServers"}, "deja", dejaServer)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(out), "/old/deja") || !strings.Contains(string(out), "\"a\": 1,\n    \"deja\": {") {
		t.Fatalf("replace:\n%s", out)
	}
	back, err := jsonRemove(out, false, []string{"mcpServers"}, "deja")
	if err != nil {
		t.Fatal(err)
	}
	if want := "{\n  \"mcpServers\": {\n    \"a\": 1,\n    \"b\": 2\n  }\n}\n"; string(back) != want {
		t.Fatalf("remove middle:\n%s", back)
	}
}

// TestJSONNew writes a whole document when there is none.
func TestJSONNew(t *testing.T) {
	out, err := jsonAdd(nil, false, []string{"mcpServers"}, "deja", dejaServer)
	if err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"mcpServers\": {\n    \"deja\": {\n      \"args\": [\n        \"mcp\"\n      ],\n      \"command\": \"/bin/deja\"\n    }\n  }\n}\n"
	if string(out) != want {
		t.Fatalf("got\n%s", out)
	}
}

// TestJSONBad refuses what is not an object, and says where.
func TestJSONBad(t *testing.T) {
	for _, doc := range []string{"[1]", "{\"a\": }", "{\"a\": 1} x", "{\"mcpServers\": 3}"} {
		if _, err := jsonAdd([]byte(doc), false, []string{"mcpServers"}, "deja", dejaServer); err == nil {
			t.Errorf("%q: no error", doc)
		}
	}
}
