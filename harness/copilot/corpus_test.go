package copilot

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

const corpusDir = harnesstest.SharedCorpus + "copilot-cli"

// corpusFiles returns the corpus's events files.
func corpusFiles(t testing.TB) []string {
	return harnesstest.CorpusFiles(t, corpusDir, "*events.jsonl*")
}

// corpusCounts are what each corpus file holds, established by a second,
// independent reading: a Python script that decodes every line with the
// json module and counts, per file, the sessions with anything in them
// (the file's own and one per parentToolCallId), the file's own
// user.message events with non-blank content (each sub-agent adds the
// prompt of its task call), its distinct non-blank assistant texts
// (assistant.message content and session.task_complete summaries, a
// repeat of the text just said not counted), and its distinct records
// per turn: bash and powershell commands, and view, edit and create
// paths other than the project itself whose tool.execution_complete did
// not report success false nor a toolTelemetry.properties.viewType of
// "directory", leaving out every call whose permission.completed result
// kind starts with "denied".
var corpusCounts = map[string]struct {
	sessions, prompts, answers, records int
	agentPrompts                        int
}{
	"3cc3555e": {1, 2, 3, 29, 0},
	"9a493a94": {1, 1, 1, 0, 0},
	"b87feda8": {1, 1, 1, 19, 0},
	"07c40cd0": {1, 7, 24, 61, 0},
	"8baa78ec": {2, 5, 19, 23, 1},
}

// TestCorpus checks each real events file against those counts, and that
// every typed prompt is in a user message while no transformedContent (the
// prompt as the model got it) is.
func TestCorpus(t *testing.T) {
	for _, path := range corpusFiles(t) {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			var want struct {
				sessions, prompts, answers, records int
				agentPrompts                        int
			}
			found := false
			for key, c := range corpusCounts {
				if strings.Contains(name, "_"+key) {
					want, found = c, true
				}
			}
			if !found {
				t.Fatalf("no counts for %s: count it and add it to corpusCounts", name)
			}
			h, data := harnesstest.ParseChecked(t, Reader{}, path, 0)
			if len(h.Warnings) > 0 || len(h.Refused) > 0 {
				t.Errorf("warnings %q refused %q on a real file", h.Warnings, h.Refused)
			}
			if len(h.Sessions) != want.sessions {
				t.Fatalf("%d sessions, want %d", len(h.Sessions), want.sessions)
			}
			s := h.Sessions[0]
			if s.Subagent || s.End != int64(len(data)) || s.Project == "" || s.Started.IsZero() {
				t.Errorf("own session %s: subagent %v, ends at %d of %d, project %q, started %v", s.ID, s.Subagent, s.End, len(data), s.Project, s.Started)
			}
			count := func(s harness.Session, role harness.Role) int {
				n := 0
				for _, m := range s.Messages {
					if m.Role == role {
						n++
					}
				}
				return n
			}
			if got := count(s, harness.User); got != want.prompts {
				t.Errorf("%d prompts, want %d", got, want.prompts)
			}
			if got := count(s, harness.Assistant); got != want.answers {
				t.Errorf("%d answers, want %d", got, want.answers)
			}
			if len(s.Records) != want.records {
				t.Errorf("%d records, want %d", len(s.Records), want.records)
			}
			agentPrompts := 0
			for _, sub := range h.Sessions[1:] {
				if !sub.Subagent || sub.Parent != s.ID || !strings.HasPrefix(sub.ID, s.ID+agentInfix) {
					t.Errorf("sub-agent %s: subagent %v parent %s", sub.ID, sub.Subagent, sub.Parent)
				}
				agentPrompts += count(sub, harness.User)
			}
			if agentPrompts != want.agentPrompts {
				t.Errorf("%d sub-agent prompts, want %d", agentPrompts, want.agentPrompts)
			}
			for _, m := range s.Messages {
				if strings.Contains(m.Text, "<current_datetime>") {
					t.Errorf("message at line %d holds the prompt as the model got it", m.Line)
				}
			}
		})
	}
}

// TestLayouts: an events file written with other spacing or its keys in
// another order (data before type) is the same file.
func TestLayouts(t *testing.T) {
	corpus := filepath.Join(corpusDir, "*events.jsonl*")
	harnesstest.CheckLayouts(t, ".jsonl", corpus, func(name string, head []byte) error {
		return Reader{}.Sniff(fixturePath(name), head)
	}, parseFixture)
}
