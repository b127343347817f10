package work

import (
	"context"
	"github.com/deja-dev/deja/harness/every"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/deja-dev/deja/chunk"
	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/internal/racebuild"
	"github.com/deja-dev/deja/memory/digest"
	"github.com/deja-dev/deja/memory/index"
	"github.com/deja-dev/deja/memory/memtest"
	"github.com/deja-dev/deja/memory/store"
)

// corpusFiles are the public histories in ../shared of the agents deja
// reads; the test skips without them.
func corpusFiles(t *testing.T) []string {
	t.Helper()
	root := filepath.Join("..", "..", "..", "shared")
	var files []string
	for _, dir := range []string{"harness/corpus/claude-code", "harness/corpus/codex", "harness/corpus/gemini-cli",
		"harness/corpus/qwen-code", "harness/corpus/pi", "harness/corpus/openclaw", "harness/corpus/cline",
		"harness/corpus/copilot-cli", "harness/corpus/cursor", "harness/corpus/opencode", "aider/corpus"} {
		_ = filepath.WalkDir(filepath.Join(root, dir), func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() {
				if abs, err := filepath.Abs(p); err == nil {
					files = append(files, abs) // projects as absolute as a home's
				}
			}
			return nil
		})
	}
	if len(files) == 0 {
		t.Skip("no corpus in ../shared")
	}
	return files
}

// runsOutput is every output of the turn's runs.
func (st stored) runsOutput() string {
	var b strings.Builder
	for _, r := range st.work.Runs {
		b.WriteString(r.Output + "\n")
	}
	return b.String()
}

// stored is a turn's records as the store holds them.
type stored struct {
	project                  string
	files, actions, commands []string
	work                     chunk.Work
}

// TestCorpusWork indexes every public history of every agent deja reads
// and holds the work questions to what the histories recorded: each turn
// blame calls an edit of a file recorded an edit of that very file
// (absolute, or relative within its project), each command how returns
// was run by the turn it names, and each turn's runs keep the exit status
// and outcome its harness recorded, in order, for every command that has
// one.
func TestCorpusWork(t *testing.T) {
	if racebuild.Enabled {
		// Every corpus indexed and asked hundreds of questions: ./test.sh
		// runs this package again without the race detector.
		t.Skip("runs without -race (./test.sh's step without the race detector)")
	}
	files := corpusFiles(t)
	ctx := context.Background()
	dir := t.TempDir()
	s, err := store.Open(ctx, filepath.Join(dir, "data"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// Histories no reader claims (a corpus's notes) are problems of the
	// index, not of this test.
	if _, err := index.Index(ctx, s, index.Options{Paths: files, Harnesses: every.Readers(), Embedder: memtest.NewWordsEmbedder()}); err != nil {
		t.Fatal(err)
	}
	rows, err := memtest.RawDB(t, s).Query(`SELECT t.session_id, t.turn, s.project, t.files, t.actions, t.commands, coalesce(unpack(w.work), '')
		FROM turns t JOIN sessions s ON s.id = t.session_id LEFT JOIN turn_work w ON w.turn_id = t.id`)
	if err != nil {
		t.Fatal(err)
	}
	turns := map[string]stored{}
	for rows.Next() {
		var id, project, files, actions, commands, work string
		var turn int
		if err := rows.Scan(&id, &turn, &project, &files, &actions, &commands, &work); err != nil {
			t.Fatal(err)
		}
		turns[store.TurnRef(id, turn)] = stored{project, store.SplitLines(files), store.SplitLines(actions), store.SplitLines(commands), chunk.DecodeWork(work)}
	}
	rows.Close()
	if len(turns) < 100 {
		t.Fatalf("the corpus gave %d turns", len(turns))
	}

	// blame: precision 1.0 on edits, asked by absolute path.
	abs := func(project, f string) string {
		f, project = strings.ReplaceAll(f, `\`, "/"), strings.ReplaceAll(project, `\`, "/")
		if isAbs(f) || project == "" {
			return f
		}
		return path.Join(project, f)
	}
	asked, edits := map[string]bool{}, 0
	failed := 0
	for _, st := range turns {
		for i, f := range st.files {
			if i < len(st.actions) && st.actions[i] == string(harness.Edited) && st.project != "" {
				asked[abs(st.project, f)] = true
			}
		}
		for _, e := range st.work.Edits {
			if st.project != "" {
				asked[abs(st.project, e.File)] = true
			}
		}
	}
	for file := range asked {
		items, err := Blame(ctx, s, all, file, 1000)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range items {
			if it.How != Edited && it.How != EditFailed {
				continue
			}
			edits++
			if it.How == EditFailed {
				failed++
			}
			st := turns[it.Ref]
			did := false
			if it.How == Edited {
				for i, f := range st.files {
					did = did || abs(st.project, f) == file && i < len(st.actions) && st.actions[i] == string(harness.Edited)
				}
			} else {
				// A failed edit: the turn recorded an edit of the file
				// that failed, and none that did not.
				for _, e := range st.work.Edits {
					if abs(st.project, e.File) == file {
						did = e.Status == harness.Failed
						if !did {
							break
						}
					}
				}
			}
			if !did {
				t.Errorf("blame %s: %s is called %s, but it recorded files %q actions %q edits %+v in %s", file, it.Ref, it.How, st.files, st.actions, st.work.Edits, st.project)
			}
		}
	}
	if edits == 0 {
		t.Fatal("blame found no edit in the corpus")
	}

	// how: every command line was run by the turn named as its last run.
	keys := map[string]bool{}
	for _, st := range turns {
		for _, c := range st.commands {
			if k := digest.CommandKey(c); k != "" && len(keys) < 150 {
				keys[k] = true
			}
		}
	}
	lines := 0
	for key := range keys {
		groups, err := How(ctx, s, all, key, 100)
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range groups {
			for _, c := range g.Commands {
				lines++
				// A turn's runs hold each command whole; its commands
				// column, a command a line, holds a multi-line one cut.
				ran := false
				st := turns[c.Last.Ref]
				for _, x := range st.commands {
					ran = ran || strings.Join(strings.Fields(x), " ") == c.Command
				}
				for _, x := range st.work.Runs {
					ran = ran || strings.Join(strings.Fields(x.Command), " ") == c.Command
				}
				if !ran || !strings.Contains(strings.ToLower(c.Command), strings.ToLower(key)) {
					t.Errorf("how %q: %.200q is said to be run at %s, which did not run it", key, c.Command, c.Last.Ref)
				}
			}
		}
	}
	if lines == 0 {
		t.Fatal("how found no command in the corpus")
	}

	// friction and fix: each error hit its sessions, and each session fix
	// names printed the error it was asked.
	errs, err := Friction(ctx, s, all, 2, 50)
	if err != nil {
		t.Fatal(err)
	}
	fixed := 0
	for _, f := range errs {
		if f.Sessions < 2 {
			t.Errorf("friction %q: %d sessions", f.Error, f.Sessions)
		}
		st := turns[f.Last.Ref]
		printed := false
		for _, r := range st.work.Runs {
			printed = printed || r.Status == harness.Failed && Signature(r.Output) == f.Error
		}
		if !printed {
			t.Errorf("friction %q: its last run %s printed no such error", f.Error, f.Last.Ref)
		}
		probe := strings.Trim(strings.ReplaceAll(strings.ReplaceAll(f.Error, "N", ""), "…/", ""), " :")
		if len(probe) < 8 {
			continue
		}
		items, err := Fix(ctx, s, all, probe, 20)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range items {
			if !strings.Contains(normal(turns[it.Ref].runsOutput()), normal(probe)) {
				t.Errorf("fix %q: %s printed no such error", probe, it.Ref)
			}
			if it.Fixed {
				fixed++
			}
		}
	}

	// restore: each recorded old text comes back whole from its turn.
	restored := 0
	for ref, st := range turns {
		for _, e := range st.work.Edits {
			if e.Old == "" || e.Clipped || e.Status == harness.Failed || restored >= 200 || st.project == "" {
				continue
			}
			session, turn, _ := strings.Cut(ref, "/")
			n, err := strconv.Atoi(turn)
			if err != nil {
				continue
			}
			r, err := Restore(ctx, s, all, abs(st.project, e.File), session, &n)
			if err != nil {
				t.Errorf("restore %s of %s: %v", e.File, ref, err)
				continue
			}
			found := false
			for _, got := range r.Edits {
				found = found || got.Old == e.Old
			}
			if !found {
				t.Errorf("restore %s of %s did not give back its old text", e.File, ref)
			}
			restored++
		}
	}

	// Outcomes: each file history parsed again, each turn's runs as its
	// harness recorded them.
	checked := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		r, err := every.Readers().Detect(f, data[:min(len(data), 64<<10)])
		fr, ok := r.(harness.FileReader)
		if err != nil || !ok {
			continue
		}
		for _, sess := range fr.Parse(data, harness.ParseOptions{Path: f}).Sessions {
			for _, turn := range chunk.Turns(sess) {
				st, ok := turns[store.TurnRef(sess.ID, turn.Index)]
				if !ok {
					continue // a session the index refused, or empty
				}
				want, got := turn.Work.Runs, st.work.Runs
				if len(want) != len(got) {
					t.Errorf("%s turn %d: %d runs recorded, %d stored", sess.ID, turn.Index, len(want), len(got))
					continue
				}
				for i := range want {
					checked++
					if want[i].Status != got[i].Status || (want[i].Exit == nil) != (got[i].Exit == nil) ||
						want[i].Exit != nil && *want[i].Exit != *got[i].Exit {
						t.Errorf("%s turn %d run %d: recorded %s %v, stored %s %v", sess.ID, turn.Index, i, want[i].Status, want[i].Exit, got[i].Status, got[i].Exit)
					}
				}
			}
		}
	}
	t.Logf("%d turns, %d files asked of blame (%d edits returned, %d of them failed), %d invocations asked of how (%d command lines), %d errors in 2+ sessions (%d fixed sessions), %d edits restored, %d runs' outcomes checked",
		len(turns), len(asked), edits, failed, len(keys), lines, len(errs), fixed, restored, checked)
	if checked == 0 {
		t.Fatal("no run with an outcome in the corpus")
	}
}
