package continuedev

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

const corpusDir = harnesstest.SharedCorpus + "continue"

// corpusIndex is the corpus's sessions.json (CN1), laid out beside the
// sessions as Continue keeps it.
const corpusIndex = "Forwall100__dotfiles__.continue_sessions_sessions.json"

// corpusFiles are the corpus sessions (CN2–CN4: the VS Code extension,
// May 2025, Linux) and the counts a second, independent reading
// established: a Python script loading each file with json.load, counting
// a prompt per user entry, an answer per assistant entry with content,
// and a record per distinct file uri among each entry's context items;
// the start is the index's dateCreated.
var corpusFiles = []struct {
	id                        string
	prompts, answers, records int
	dateCreated               int64
}{
	{"8e6f22c4-362a-4ac6-8817-8280ce121bab", 1, 1, 0, 1746429351811},
	{"962f5ac0-af1f-4a7f-86a3-bbf0168457f3", 1, 1, 0, 1746366913625},
	{"b2772a27-e4ad-46b4-b502-5a35bac1c462", 1, 1, 6, 1746365708649},
}

func layCorpus(t *testing.T) string {
	layout := map[string]string{corpusIndex: ".continue/sessions/sessions.json"}
	for _, c := range corpusFiles {
		layout["Forwall100__dotfiles__.continue_sessions_"+c.id+".json"] = ".continue/sessions/" + c.id + ".json"
	}
	return harnesstest.LayCorpus(t, corpusDir, layout)
}

func TestCorpus(t *testing.T) {
	home := layCorpus(t)
	d := Discover(harness.DiscoverOptions{Home: home})
	if len(d.Sources) != len(corpusFiles) || !d.Installed || len(d.Warnings) != 0 {
		t.Fatalf("discovered %d sources (installed %v, warnings %v), want %d: %+v", len(d.Sources), d.Installed, d.Warnings, len(corpusFiles), d.Sources)
	}
	for _, c := range corpusFiles {
		t.Run(c.id, func(t *testing.T) {
			path := filepath.Join(home, ".continue", "sessions", c.id+".json")
			h, _ := harnesstest.ParseChecked(t, Reader{}, path, harnesstest.SniffHead)
			if len(h.Sessions) != 1 || len(h.Warnings) != 0 {
				t.Fatalf("%d sessions, warnings %v; want 1 and none", len(h.Sessions), h.Warnings)
			}
			s := h.Sessions[0]
			var prompts, answers int
			for _, m := range s.Messages {
				if m.Role == harness.User {
					prompts++
				} else {
					answers++
				}
			}
			if s.ID != IDPrefix+c.id || s.Project != "/home/user/Documents/code/resumatter" || s.Parent != "" || s.Subagent {
				t.Errorf("session %s project %q parent %q subagent %v", s.ID, s.Project, s.Parent, s.Subagent)
			}
			if prompts != c.prompts || answers != c.answers || len(s.Records) != c.records {
				t.Errorf("%d prompts, %d answers, %d records; want %d, %d, %d", prompts, answers, len(s.Records), c.prompts, c.answers, c.records)
			}
			if want := time.UnixMilli(c.dateCreated); !s.Started.Equal(want) {
				t.Errorf("started %v, want the index's %v", s.Started, want)
			}
			for _, r := range s.Records {
				if r.Action != harness.Added || strings.HasPrefix(r.Value, "/") || strings.Contains(r.Value, "%") {
					t.Errorf("record %+v: want a file added, relative to the project, its URI decoded", r)
				}
			}
		})
	}
	// The index is not a session.
	if err := (Reader{}).Sniff(filepath.Join(home, ".continue", "sessions", indexFile), nil); err == nil {
		t.Error("Sniff claims sessions.json")
	}
}
