//go:build unix

package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deja-dev/deja/aider"
	"github.com/deja-dev/deja/memory/store"
)

// damages are ways a store's database goes bad: its header zeroed, cut to
// half its length, every other page from the fourth zeroed, and one byte
// of a session's header flipped, which leaves a database SQLite reads
// happily and a row that is not what deja wrote.
var damages = []struct {
	name  string
	opens bool // whether the store still opens
	apply func(db []byte) []byte
}{
	{"header zeroed", false, func(db []byte) []byte { copy(db, make([]byte, 100)); return db }},
	{"truncated", false, func(db []byte) []byte { return db[:len(db)/2] }},
	{"pages zeroed", false, func(db []byte) []byte {
		for p := 3 * 4096; p+4096 <= len(db); p += 2 * 4096 {
			copy(db[p:], make([]byte, 4096))
		}
		return db
	}},
	{"a row's byte flipped", true, func(db []byte) []byte {
		i := bytes.Index(db, []byte("# aider chat started at"))
		if i < 0 {
			panic("no session header in deja.db")
		}
		db[i+3] ^= 0x20
		return db
	}},
}

// TestDamagedStoreSaysWhatToDo damages a store each way: a reading
// command that fails says to run 'deja doctor' and how to rebuild, 'deja
// doctor' exits 2 and names the rebuild (it exited 0), and 'deja index
// --rebuild' moves the store aside, keeps it, rebuilds it from the
// histories and names the sessions whose history is gone. Afterwards
// doctor finds nothing wrong and recall answers.
func TestDamagedStoreSaysWhatToDo(t *testing.T) {
	for _, d := range damages {
		t.Run(d.name, func(t *testing.T) {
			dataDir := indexedDataDir(t)
			base := filepath.Dir(dataDir)
			isolateHome(t, base)
			project := filepath.Join(base, "shop")
			// A second history, indexed and then deleted: its sessions are
			// what a rebuild cannot bring back.
			gone := filepath.Join(base, "gone", aider.HistoryFileName)
			os.MkdirAll(filepath.Dir(gone), 0o755)
			data, err := os.ReadFile("../../memory/testdata/history.md")
			if err != nil {
				t.Fatal(err)
			}
			os.WriteFile(gone, data, 0o644)
			deja(t, context.Background(), nil, "index", gone)
			os.RemoveAll(filepath.Dir(gone))

			db := filepath.Join(dataDir, store.DBFile)
			orig, err := os.ReadFile(db)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(db, d.apply(orig), 0o600); err != nil {
				t.Fatal(err)
			}

			if !d.opens {
				_, stderr, code := runDeja(t, base, "recall", "tenant")
				if code != exitFailed || !strings.Contains(stderr, "'deja doctor'") || !strings.Contains(stderr, store.RebuildCommand) {
					t.Errorf("recall on a damaged store: exit %d, stderr %q; want exit 2 and what to do", code, stderr)
				}
			}
			stdout, stderr, code := runDeja(t, base, "doctor")
			if code != exitFailed || !strings.Contains(stderr, store.RebuildCommand) {
				t.Errorf("doctor on a damaged store: exit %d, stderr %q\n%s; want exit 2 and the rebuild", code, stderr, stdout)
			}
			if d.opens && !strings.Contains(stdout, "integrity   DAMAGED") {
				t.Errorf("doctor on a store that opens but changed:\n%s", stdout)
			}

			args := []string{"index", "--rebuild"}
			if !d.opens {
				// Its list of histories is lost with the database.
				args = append(args, project)
			}
			_, stderr, code = runDeja(t, base, args...)
			if code != 0 || !strings.Contains(stderr, "moved the store to") || !strings.Contains(stderr, "could not recover 2 sessions") {
				t.Errorf("deja %s: exit %d, stderr %q; want the store moved aside and the 2 sessions of the deleted history named", strings.Join(args, " "), code, stderr)
			}
			aside, _ := filepath.Glob(filepath.Join(dataDir, store.AsidePrefix+"*", store.DBFile))
			if len(aside) != 1 {
				t.Errorf("the damaged store set aside: %v, want its deja.db kept", aside)
			}
			stdout, stderr, code = runDeja(t, base, "doctor")
			if code != 0 || !strings.Contains(stdout, "integrity   ok") || !strings.Contains(stdout, "3 sessions") {
				t.Errorf("doctor after the rebuild: exit %d\n%s\n%s", code, stdout, stderr)
			}
			if stdout, stderr, code := runDeja(t, base, "recall", "tenant"); code != 0 || !strings.Contains(stdout, "Customers are seeing orders") {
				t.Errorf("recall after the rebuild: exit %d\n%s\n%s", code, stdout, stderr)
			}
		})
	}
}

// isolateHome points every place deja discovers histories at an empty
// home under base, so that a rebuild indexes what the test made and
// nothing of the machine's own.
func isolateHome(t *testing.T, base string) {
	home := filepath.Join(base, "home")
	os.MkdirAll(home, 0o755)
	t.Setenv("HOME", home)
	t.Setenv("XDG_DATA_HOME", filepath.Join(home, ".local", "share"))
	for _, v := range []string{"AIDER_CHAT_HISTORY_FILE", "CLAUDE_CONFIG_DIR", "CODEX_HOME", "DEJA_AIDER_ROOTS"} {
		t.Setenv(v, "")
	}
}
