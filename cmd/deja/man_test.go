package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

var updateMan = flag.Bool("update-man", false, "rewrite docs/man from the commands")

// manDate is the date the man pages carry; generating them again keeps it,
// so a page changes only when its command does.
var manDate = time.Date(2026, 12, 6, 0, 0, 0, 0, time.UTC)

// TestManPagesAreCurrent: docs/man holds a page per command, generated
// from the commands' own help (cobra/doc); a command whose help changed
// without its page fails here. 'go test ./cmd/deja -run
// TestManPagesAreCurrent -update-man' writes them again.
func TestManPagesAreCurrent(t *testing.T) {
	dir := t.TempDir()
	root := newRootCmd(&IO{Out: &bytes.Buffer{}, Err: &bytes.Buffer{}, In: strings.NewReader("")})
	root.DisableAutoGenTag = true
	header := &doc.GenManHeader{Title: "DEJA", Section: "1", Source: "deja", Manual: "deja manual", Date: &manDate}
	escapeHelp(root)
	if err := doc.GenManTree(root, header, dir); err != nil {
		t.Fatal(err)
	}
	pages, _ := filepath.Glob(filepath.Join(dir, "*.1"))
	for _, p := range pages {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, noFill(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want := filepath.Join("..", "..", "docs", "man")
	if *updateMan {
		if err := os.RemoveAll(want); err != nil {
			t.Fatal(err)
		}
		if err := os.CopyFS(want, os.DirFS(dir)); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, _ := filepath.Glob(filepath.Join(dir, "*.1"))
	have, _ := filepath.Glob(filepath.Join(want, "*.1"))
	if len(got) != len(have) {
		t.Errorf("docs/man has %d pages, the commands make %d: run go test ./cmd/deja -run TestManPagesAreCurrent -update-man", len(have), len(got))
	}
	for _, g := range got {
		a, _ := os.ReadFile(g)
		b, err := os.ReadFile(filepath.Join(want, filepath.Base(g)))
		if err != nil || !bytes.Equal(a, b) {
			t.Errorf("docs/man/%s is not the page its command makes: run go test ./cmd/deja -run TestManPagesAreCurrent -update-man", filepath.Base(g))
		}
	}
}

// noFill sets the help's indented blocks (the agents deja reads, a
// command's table of subcommands or places) without filling: cobra/doc
// writes them as they are, and man then ran each into the next line and
// justified it ("deja  sources               where  deja looks for each
// agent's histo‐ / ries"). A block is a run of lines that start with two
// spaces, and the paragraph's first line before them, whose indent
// cobra/doc drops.
func noFill(page []byte) []byte {
	var out []string
	in := false
	lines := strings.Split(string(page), "\n")
	for i, line := range lines {
		indented := strings.HasPrefix(line, "  ") ||
			i > 0 && lines[i-1] == ".PP" && i+1 < len(lines) && strings.HasPrefix(lines[i+1], "  ")
		if indented && !in {
			out = append(out, ".nf")
		}
		if !indented && in {
			out = append(out, ".fi")
		}
		in = indented
		out = append(out, line)
	}
	return []byte(strings.Join(out, "\n"))
}

// TestNoFill: an indented block is set without filling, the rest as it
// was.
func TestNoFill(t *testing.T) {
	got := string(noFill([]byte("It reads:\n\n.PP\naider, Amp,\n  Cline\n\n.PP\nStart here:\n  deja sources   where\n  deja index     index\n\n.PP\nmore\n")))
	want := "It reads:\n\n.PP\n.nf\naider, Amp,\n  Cline\n.fi\n\n.PP\n.nf\nStart here:\n  deja sources   where\n  deja index     index\n.fi\n\n.PP\nmore\n"
	if got != want {
		t.Errorf("noFill:\n%s\nwant\n%s", got, want)
	}
}

// escapeHelp escapes in every command's help what cobra/doc's markdown
// would eat: <name> and <root> read as HTML tags and dropped, and a pair
// of underscores as emphasis ("DEJA_<NAME>_DIRS" came out "DEJA_DIRS",
// "prompt_history.json" "prompthistory.json").
func escapeHelp(c *cobra.Command) {
	r := strings.NewReplacer(`\`, `\\`, "<", `\<`, "_", `\_`, "*", `\*`, "`", "\\`")
	c.Long = r.Replace(c.Long) // an example is set as code, unescaped
	for _, sub := range c.Commands() {
		escapeHelp(sub)
	}
}
