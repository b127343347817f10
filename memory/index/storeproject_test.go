package index

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/memory/digest"
	"github.com/deja-dev/deja/memory/memtest"
	"github.com/deja-dev/deja/memory/recall"
	"github.com/deja-dev/deja/memory/store"
)

// TestStoreSessionWithoutProjectKeepsNone: a session a store's agent kept
// no project for (a Hermes cron run, a Kiro CLI conversation keyed by no
// directory) is stored with none, not with the store's folder, which is
// the agent's (~/.hermes), so 'deja resume' does not cd there. A session
// with a project keeps it.
func TestStoreSessionWithoutProjectKeepsNone(t *testing.T) {
	s, _ := memtest.Fixture(t)
	ctx := context.Background()
	store := writeResolved(t, filepath.Join(t.TempDir(), "state.db"), "WHOLE\nN 1 what is on my calendar\nS 2 tidy the changelog\n")
	if rep, err := Index(ctx, s, Options{Paths: []string{store}, Harnesses: harness.Registry{wholeFake{}}}); err != nil || len(rep.Problems) > 0 {
		t.Fatalf("index: %v %q", err, rep.Problems)
	}
	all, err := digest.Sessions(ctx, s, recall.Scope{Subagents: true})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, si := range all {
		got[si.ID] = si.Project
	}
	if p, ok := got["whole-1"]; !ok || p != "" {
		t.Errorf("the session with no project has project %q (stored %v), want none", p, ok)
	}
	if p := got["whole-2"]; p != "/srv/shop" {
		t.Errorf("the session of /srv/shop has project %q", p)
	}
}

// folderFake is a FileReader of made-up session files kept in the agent's
// own folder (as Continue keeps ~/.continue/sessions): a file opening with
// "FOLDER" whose lines "S <id> <prompt>" are sessions of /srv/shop and
// "N <id> <prompt>" sessions that name no project.
type folderFake struct{}

func (folderFake) Name() string                                       { return "folder" }
func (folderFake) Discover(harness.DiscoverOptions) harness.Discovery { return harness.Discovery{} }
func (folderFake) ValidID(id string) bool                             { return strings.HasPrefix(id, "folder-") }
func (folderFake) Sniff(path string, head []byte) error {
	if !strings.HasPrefix(string(head), "FOLDER") {
		return errors.New("not a folder fake")
	}
	return nil
}
func (folderFake) Parse(data []byte, opts harness.ParseOptions) *harness.History {
	h := &harness.History{}
	for i, line := range strings.Split(string(data), "\n") {
		kind, rest, _ := strings.Cut(line, " ")
		if kind != "S" && kind != "N" {
			continue
		}
		id, prompt, _ := strings.Cut(rest, " ")
		project := "/srv/shop"
		if kind == "N" {
			project = ""
		}
		h.Sessions = append(h.Sessions, harness.Session{ID: "folder-" + id, Ordinal: len(h.Sessions) + 1, Project: project,
			Messages: []harness.Message{{Role: harness.User, Text: prompt, Line: i + 1}, {Role: harness.Assistant, Text: "Done.", Line: i + 1}}})
	}
	return h
}

// folderAider is folderFake as a reader that keeps each history in the
// project it worked in, as aider does (harness.FolderProject).
type folderAider struct{ folderFake }

func (folderAider) HistoryInProject() {}

// TestFileSessionWithoutProjectKeepsNone: a session of a history file
// that names no project (a Continue session of no workspace) keeps none,
// not the file's folder, which is the agent's (~/.continue/sessions);
// only a reader that keeps its history in the project (aider) gives such
// a session the file's folder.
func TestFileSessionWithoutProjectKeepsNone(t *testing.T) {
	for _, tc := range []struct {
		name   string
		reader harness.FileReader
		folder bool
	}{{"agent folder", folderFake{}, false}, {"project folder", folderAider{}, true}} {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := memtest.Fixture(t)
			ctx := context.Background()
			path := writeResolved(t, filepath.Join(t.TempDir(), "sessions.txt"), "FOLDER\nN 1 what is on my calendar\nS 2 tidy the changelog\n")
			if rep, err := Index(ctx, s, Options{Paths: []string{path}, Harnesses: harness.Registry{tc.reader}}); err != nil || len(rep.Problems) > 0 {
				t.Fatalf("index: %v %q", err, rep.Problems)
			}
			all, err := digest.Sessions(ctx, s, recall.Scope{Subagents: true})
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for _, si := range all {
				got[si.ID] = si.Project
			}
			want := ""
			if tc.folder {
				want, _ = store.RedactPath(filepath.Dir(path))
			}
			if p, ok := got["folder-1"]; !ok || p != want {
				t.Errorf("the session with no project has project %q (stored %v), want %q", p, ok, want)
			}
			if p := got["folder-2"]; p != "/srv/shop" {
				t.Errorf("the session of /srv/shop has project %q", p)
			}
		})
	}
}
