package install

import (
	"strings"
	"testing"
)

const codexBody = "command = \"/bin/deja\"\nargs = [\"mcp\"]\n"

// TestTOMLRoundTrip appends deja's table and removes it: comments and
// other servers stay, the file comes back byte for byte.
func TestTOMLRoundTrip(t *testing.T) {
	docs := map[string]string{
		"servers":  "# my codex\nmodel = \"o3\" # fast\n\n[mcp_servers.other]\ncommand = \"x\"\n# trailing comment\n",
		"empty":    "",
		"no break": "model = \"o3\"\n",
	}
	for name, doc := range docs {
		t.Run(name, func(t *testing.T) {
			added, err := tomlAdd([]byte(doc), "mcp_servers.deja", codexBody)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(string(added), doc) || !strings.Contains(string(added), "[mcp_servers.deja]\n"+codexBody) {
				t.Fatalf("added:\n%s", added)
			}
			again, err := tomlAdd(added, "mcp_servers.deja", codexBody)
			if err != nil || string(again) != string(added) {
				t.Fatalf("second add changed it (%v):\n%s", err, again)
			}
			back, err := tomlRemove(added, "mcp_servers.deja")
			if err != nil {
				t.Fatal(err)
			}
			if string(back) != doc {
				t.Fatalf("after remove %q, want %q", back, doc)
			}
		})
	}
}

// TestTOMLReplace rewrites an existing deja table in the middle of the
// file and keeps the table after it.
func TestTOMLReplace(t *testing.T) {
	doc := "[mcp_servers.deja]\ncommand = \"/old\"\n\n[mcp_servers.deja.env]\nA = \"1\"\n\n[profiles.x]\nmodel = \"y\"\n"
	out, err := tomlAdd([]byte(doc), "mcp_servers.deja", codexBody)
	if err != nil {
		t.Fatal(err)
	}
	if want := "[mcp_servers.deja]\n" + codexBody + "\n[profiles.x]\nmodel = \"y\"\n"; string(out) != want {
		t.Fatalf("got %q", out)
	}
}

// TestTOMLInline refuses a deja entry it cannot edit line by line, and a
// file that does not parse.
func TestTOMLInline(t *testing.T) {
	for _, doc := range []string{"mcp_servers = { deja = { command = \"x\" } }\n", "[mcp_servers\n"} {
		if _, err := tomlAdd([]byte(doc), "mcp_servers.deja", codexBody); err == nil {
			t.Errorf("%q: no error", doc)
		}
	}
}

// TestTOMLString quotes paths with backslashes and quotes.
func TestTOMLString(t *testing.T) {
	if got := tomlString(`C:\deja "x"\deja.exe`); !tomlHas([]byte("[a]\nb = "+got+"\n"), "a.b") {
		t.Fatalf("%s does not parse", got)
	}
}
