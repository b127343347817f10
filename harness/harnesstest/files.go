package harnesstest

import (
	"database/sql"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/rogpeppe/go-internal/txtar"
)

// WriteFile writes body to path, making the folders above it, and returns
// path: a file of a scratch home laid out as an agent writes it.
func WriteFile(t testing.TB, path, body string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// LayCorpus copies corpus files into a scratch home as their agent lays
// them out and returns the home: layout maps a file's name below dir to
// its place below the home, in slash form. It skips t when dir is absent
// (a user's clone has no corpus, CI has one).
func LayCorpus(t testing.TB, dir string, layout map[string]string) string {
	t.Helper()
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("no corpus at %s (it sits beside the repository in CI)", dir)
	}
	home := t.TempDir()
	for src, dst := range layout {
		data, err := os.ReadFile(filepath.Join(dir, src))
		if err != nil {
			t.Fatal(err)
		}
		WriteFile(t, filepath.Join(home, filepath.FromSlash(dst)), string(data))
	}
	return home
}

// CheckSources fails t unless d found exactly the files want, each once,
// in the order of their paths (links resolved, as discovery reports
// them).
func CheckSources(t *testing.T, d harness.Discovery, want ...string) {
	t.Helper()
	var w, got []string
	for _, p := range want {
		r, err := filepath.EvalSymlinks(p)
		if err != nil {
			t.Fatal(err)
		}
		w = append(w, r)
	}
	slices.Sort(w)
	for _, s := range d.Sources {
		got = append(got, s.Path)
	}
	if !slices.Equal(got, w) {
		t.Errorf("found\n%q\nwant\n%q", got, w)
	}
}

// ParseChecked reads the history at path and parses it whole with r, as
// the indexer would find it there, failing t unless r's Sniff claims its
// first head bytes (none are sniffed when head is 0) and the parse keeps
// every reader's invariants (CheckInvariants). It returns the parse and
// the bytes.
func ParseChecked(t *testing.T, r harness.FileReader, path string, head int) (*harness.History, []byte) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if head > 0 {
		if err := r.Sniff(path, data[:min(len(data), head)]); err != nil {
			t.Fatalf("Sniff: %v", err)
		}
	}
	h := harness.ParseFile(r, data, harness.ParseOptions{Path: path})
	CheckInvariants(t, h, 0, len(data))
	return h, data
}

// ReadFixture returns the bytes of the testdata file name, failing t when
// it cannot be read.
func ReadFixture(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// Env is a DiscoverOptions.Getenv that knows only the variables pairs
// names, a name then its value: Env("A", "1", "B", "2").
func Env(pairs ...string) func(string) string {
	env := map[string]string{}
	for i := 0; i+1 < len(pairs); i += 2 {
		env[pairs[i]] = pairs[i+1]
	}
	return func(k string) string { return env[k] }
}

// CheckNoAgent fails t unless d is the discovery of a home where the
// agent never ran: not installed, no sources, no warnings, and none of the
// places it looked in there.
func CheckNoAgent(t *testing.T, d harness.Discovery) {
	t.Helper()
	if d.Installed || len(d.Sources) != 0 || len(d.Warnings) != 0 {
		t.Errorf("no agent: installed %v, sources %+v, warnings %q", d.Installed, d.Sources, d.Warnings)
	}
	for _, p := range d.Places {
		if p.Exists {
			t.Errorf("no agent: the place %s exists", p.Path)
		}
	}
}

// Resume is a case for CheckResumes: a session ID, its project, and the
// command it resumes with there ("" for none).
type Resume [3]string

// CheckResumes fails t unless r's ResumeCommand gives each case's
// command.
func CheckResumes(t *testing.T, r harness.Resumer, cases []Resume) {
	t.Helper()
	for _, c := range cases {
		if got := r.ResumeCommand(c[0], c[1]); got != c[2] {
			t.Errorf("ResumeCommand(%q, %q) = %q, want %q", c[0], c[1], got, c[2])
		}
	}
}

// Unpack writes the files of the txtar archive fixture below a scratch
// folder and returns the folder. Each file goes through write, given its
// path there and its bytes, when write is not nil (to make a store of a
// script, say); otherwise it is written as it is.
func Unpack(t testing.TB, fixture string, write func(path string, data []byte)) string {
	t.Helper()
	ar, err := txtar.ParseFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, f := range ar.Files {
		p := filepath.Join(dir, filepath.FromSlash(f.Name))
		if write != nil {
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			write(p, f.Data)
			continue
		}
		WriteFile(t, p, string(f.Data))
	}
	return dir
}

// SQLiteStore runs scripts, in order, into the SQLite store at path (made
// when absent) in WAL mode, as the agents that keep SQLite stores run
// them. The test binary must link a driver registered as "sqlite", as the
// readers of such stores do.
func SQLiteStore(t testing.TB, path string, scripts ...string) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(wal)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, script := range scripts {
		if _, err := db.Exec(script); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
	}
}
