package crush

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// corpusDir holds real Crush stores collected from public repositories
// (MANIFEST.tsv beside it).
const corpusDir = harnesstest.SharedCorpus + "crush"

// corpusWant is what a store of the corpus holds, counted by a second,
// independent reading: a Python script (sqlite3 and json from its standard
// library) that took every session row, user messages with a non-empty
// text part as prompts, assistant messages with one as answers, and as
// records every bash call, every edit and write call, each edit of a
// multiedit call, and each file viewed in a turn whose view did not fail;
// failed counts the records whose tool_result has is_error or whose bash
// output ends "Exit code N" with N not 0.
type corpusWant struct {
	sessions, prompts, answers, records, commands, failed int
}

var corpusFiles = map[string]corpusWant{
	// Crush ~2025-08: 3 sessions, 60 messages, 4 of them only in the WAL
	// the repository committed beside the store.
	"gleicon__mcpfier__.crush_crush.db.merged.db": {3, 14, 11, 21, 4, 3},
}

func TestCorpus(t *testing.T) {
	files := harnesstest.CorpusFiles(t, corpusDir, "*.db")
	for _, path := range files {
		name := filepath.Base(path)
		want, ok := corpusFiles[name]
		if !ok {
			t.Errorf("%s: no counts for this corpus file", name)
			continue
		}
		t.Run(name, func(t *testing.T) {
			h, err := harness.ReadStore(context.Background(), Reader{}, path, harness.ParseOptions{Path: path})
			if err != nil {
				t.Fatal(err)
			}
			harnesstest.CheckInvariants(t, &harness.History{Sessions: withoutRanges(h.Sessions)}, 0, 0)
			harnesstest.CheckValidIDs(t, h, Reader{}.ValidID)
			harnesstest.CheckTurns(t, h, IDPrefix)
			var got corpusWant
			got.sessions = len(h.Sessions)
			for _, s := range h.Sessions {
				if !s.HasStart() || s.Started.Year() != 2025 {
					t.Errorf("%s started %v, want a time of 2025 (created_at is in seconds)", s.ID, s.Started)
				}
				for _, m := range s.Messages {
					if m.Role == harness.User {
						got.prompts++
					} else {
						got.answers++
					}
				}
				for _, r := range s.Records {
					got.records++
					if r.Kind == harness.CommandRecord {
						got.commands++
					}
					if r.Outcome.Status == harness.Failed {
						got.failed++
					}
				}
			}
			if got != want {
				t.Errorf("got %+v, want %+v", got, want)
			}
			if len(h.Refused) > 0 || len(h.Warnings) > 0 {
				t.Errorf("refused %q, warnings %q", h.Refused, h.Warnings)
			}
		})
	}
}
