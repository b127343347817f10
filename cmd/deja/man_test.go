package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

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
	if err := doc.GenManTree(root, header, dir); err != nil {
		t.Fatal(err)
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
