package install

import (
	"strings"
	"testing"
)

// TestYAMLRoundTrip adds the context file to read: and removes it; the
// file comes back byte for byte, comments included.
func TestYAMLRoundTrip(t *testing.T) {
	docs := map[string]string{
		"no read":    "# aider settings\nmodel: sonnet # best\n",
		"read list":  "model: sonnet\nread:\n    - CONVENTIONS.md # style\n    - docs/x.md\nauto-commits: false\n",
		"empty file": "",
	}
	for name, doc := range docs {
		t.Run(name, func(t *testing.T) {
			added, err := yamlAddListItem([]byte(doc), "read", "/data/ctx.md")
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(added), `"/data/ctx.md"`) {
				t.Fatalf("added:\n%s", added)
			}
			again, err := yamlAddListItem(added, "read", "/data/ctx.md")
			if err != nil || string(again) != string(added) {
				t.Fatalf("second add changed it (%v):\n%s", err, again)
			}
			back, err := yamlRemoveMarked(added)
			if err != nil {
				t.Fatal(err)
			}
			if string(back) != doc {
				t.Fatalf("after remove %q, want %q", back, doc)
			}
		})
	}
}

// TestYAMLInline refuses read: forms it cannot add a line to.
func TestYAMLInline(t *testing.T) {
	for _, doc := range []string{"read: CONVENTIONS.md\n", "read: [a.md]\n", "read: [\n"} {
		if _, err := yamlAddListItem([]byte(doc), "read", "/x.md"); err == nil {
			t.Errorf("%q: no error", doc)
		}
	}
}
