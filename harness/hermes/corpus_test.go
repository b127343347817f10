package hermes

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// corpusDir holds real Hermes stores collected from public repositories
// (MANIFEST.tsv beside it).
const corpusDir = harnesstest.SharedCorpus + "hermes"

// corpusWant is what a store of the corpus holds, counted by a second,
// independent reading with the sqlite3 shell: sessions; active user rows
// with content (none of them a compaction handoff or a review prompt) as
// prompts; active assistant rows with content as answers; the distinct
// terminal commands and write_file paths per turn of the tool_calls
// (json_each) as records (the excerpt has 9 terminal calls, one repeated
// in a later turn, and 2 write_file calls, no read_file or patch), and
// the terminal calls whose tool row holds an exit_code.
type corpusWant struct {
	sessions, prompts, answers, records, exits int
}

var corpusFiles = map[string]corpusWant{
	"kingyx3__hermes__.hermes_state.db.excerpt.db": {2, 15, 14, 11, 9},
}

func TestCorpus(t *testing.T) {
	for _, path := range harnesstest.CorpusFiles(t, corpusDir, "*.db") {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			want, ok := corpusFiles[name]
			if !ok {
				t.Fatalf("no counts for %s: count it and add it to corpusFiles", name)
			}
			h, err := harness.ReadStore(context.Background(), Reader{}, path, harness.ParseOptions{Path: path})
			if err != nil {
				t.Fatal(err)
			}
			if len(h.Warnings) > 0 || len(h.Refused) > 0 {
				t.Errorf("warnings %q, refused %q on a real store", h.Warnings, h.Refused)
			}
			harnesstest.CheckInvariants(t, h, 0, 0)
			harnesstest.CheckTurns(t, h, IDPrefix)
			var got corpusWant
			got.sessions = len(h.Sessions)
			for _, s := range h.Sessions {
				for _, m := range s.Messages {
					if m.Role == harness.User {
						got.prompts++
					} else {
						got.answers++
					}
					if m.Time.IsZero() {
						t.Errorf("session %s: a message without its time", s.ID)
					}
				}
				for _, r := range s.Records {
					got.records++
					if r.Outcome.Exit != nil {
						got.exits++
					}
				}
				if s.Started.IsZero() || s.Project != "" {
					t.Errorf("session %s: started %v, project %q (Telegram and cron sessions have no directory)", s.ID, s.Started, s.Project)
				}
			}
			if got != want {
				t.Errorf("read %+v, want %+v", got, want)
			}
		})
	}
}
