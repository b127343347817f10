package kimi

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

const corpusDir = harnesstest.SharedCorpus + "kimi"

// corpusLayout puts each corpus file back where its product wrote it,
// under a scratch home: the reader takes a session's ID, project and
// parent from its place and the files beside it.
var corpusLayout = map[string]string{
	"youngstunners88__ihhashi__.kimi_kimi.json": ".kimi/kimi.json",
	"youngstunners88__ihhashi__.kimi_sessions_697a0ebec3147bb421a9dd6a0531906f_0be84c98-0aeb-48c3-aa42-0fb8330914ef_wire.jsonl":          ".kimi/sessions/697a0ebec3147bb421a9dd6a0531906f/0be84c98-0aeb-48c3-aa42-0fb8330914ef/wire.jsonl",
	"youngstunners88__ihhashi__.kimi_sessions_697a0ebec3147bb421a9dd6a0531906f_0be84c98-0aeb-48c3-aa42-0fb8330914ef_context.jsonl":       ".kimi/sessions/697a0ebec3147bb421a9dd6a0531906f/0be84c98-0aeb-48c3-aa42-0fb8330914ef/context.jsonl",
	"youngstunners88__ihhashi__.kimi_sessions_697a0ebec3147bb421a9dd6a0531906f_3951a8af-d393-44a8-a19f-057bbdf8cb1c_state.json":          ".kimi/sessions/697a0ebec3147bb421a9dd6a0531906f/3951a8af-d393-44a8-a19f-057bbdf8cb1c/state.json",
	"youngstunners88__ihhashi__.kimi_sessions_697a0ebec3147bb421a9dd6a0531906f_b1ea4a04-95d9-43a8-98ce-189f553b08ca_context_sub_1.jsonl": ".kimi/sessions/697a0ebec3147bb421a9dd6a0531906f/b1ea4a04-95d9-43a8-98ce-189f553b08ca/context_sub_1.jsonl",
	"MoonshotAI__kimi-code__packages_migration-legacy_test_fixtures_legacy-protocol-1.3_wire.jsonl":                                      ".kimi/sessions/5f2b51f5e40d5a3ab0ab3b5e5c6e2d0b/7d3c1b2a-4e5f-4a6b-8c7d-9e0f1a2b3c4d/wire.jsonl",
	"MoonshotAI__kimi-code__apps_vis_server_test_fixtures_sessions_sample-main_state.json":                                               ".kimi-code/sessions/wd_work_8d2f0c1e9a7b/session_sample-main/state.json",
	"MoonshotAI__kimi-code__apps_vis_server_test_fixtures_sessions_sample-main_agents_main_wire.jsonl":                                   ".kimi-code/sessions/wd_work_8d2f0c1e9a7b/session_sample-main/agents/main/wire.jsonl",
	"MoonshotAI__kimi-code__apps_vis_server_test_fixtures_sessions_sample-main_agents_agent-0_wire.jsonl":                                ".kimi-code/sessions/wd_work_8d2f0c1e9a7b/session_sample-main/agents/agent-0/wire.jsonl",
	"MoonshotAI__kimi-code__apps_vis_server_test_fixtures_sessions_sample-compaction_agents_main_wire.jsonl":                             ".kimi-code/sessions/wd_work_8d2f0c1e9a7b/session_sample-compaction/agents/main/wire.jsonl",
}

// corpusCounts are, per laid-out file (by its place), the sessions,
// prompts, answers and file or command records a second reading counts:
// prompts are TurnBegin events (kimi-cli), user-origin turn.prompt
// records, or user messages where a file has none (a context file, a
// Kimi Code file with no turn.prompt); answers are the steps with a
// text part (a context file's assistant messages with text); records
// are the Shell, Bash, file and edit calls.
var corpusCounts = map[string]struct{ sessions, prompts, answers, records int }{
	"0be84c98-0aeb-48c3-aa42-0fb8330914ef/wire.jsonl":          {1, 5, 1, 0},
	"0be84c98-0aeb-48c3-aa42-0fb8330914ef/context.jsonl":       {1, 5, 1, 1},
	"b1ea4a04-95d9-43a8-98ce-189f553b08ca/context_sub_1.jsonl": {1, 1, 5, 11},
	"7d3c1b2a-4e5f-4a6b-8c7d-9e0f1a2b3c4d/wire.jsonl":          {1, 1, 0, 1},
	"session_sample-main/agents/main/wire.jsonl":               {1, 1, 1, 0},
	"session_sample-main/agents/agent-0/wire.jsonl":            {0, 0, 0, 0},
	"session_sample-compaction/agents/main/wire.jsonl":         {1, 2, 1, 0},
}

// TestCorpus reads every real and fixture file where its product wrote
// it: discovery finds the session files (and no context file beside a
// wire log), each is claimed and parses to the counts of the second
// reading, and a kimi-cli session's project is the work directory whose
// md5 names its bucket in kimi.json.
func TestCorpus(t *testing.T) {
	home := harnesstest.LayCorpus(t, corpusDir, corpusLayout)
	d := Discover(harness.DiscoverOptions{Home: home})
	var want []string
	for _, dst := range corpusLayout {
		if strings.HasSuffix(dst, ".jsonl") && !strings.HasSuffix(dst, "0fb8330914ef/context.jsonl") {
			want = append(want, filepath.Join(home, filepath.FromSlash(dst)))
		}
	}
	harnesstest.CheckSources(t, d, want...)
	checked := 0
	for _, dst := range corpusLayout {
		want, ok := corpusCounts[countKey(dst)]
		if !ok {
			continue
		}
		checked++
		path := filepath.Join(home, filepath.FromSlash(dst))
		t.Run(countKey(dst), func(t *testing.T) {
			h, _ := harnesstest.ParseChecked(t, Reader{}, path, harnesstest.SniffHead)
			harnesstest.CheckValidIDs(t, h, Reader{}.ValidID)
			harnesstest.CheckTurns(t, h, IDPrefix)
			if len(h.Warnings) > 0 || len(h.Refused) > 0 {
				t.Errorf("warnings %q, refused %q", h.Warnings, h.Refused)
			}
			var prompts, answers, records int
			for _, s := range h.Sessions {
				for _, m := range s.Messages {
					if m.Role == harness.User {
						prompts++
					} else {
						answers++
					}
				}
				records += len(s.Records)
				if strings.HasPrefix(dst, ".kimi/sessions/697a") && s.Project != "/home/teacherchris37" {
					t.Errorf("%s: project %q, want the work directory kimi.json names", s.ID, s.Project)
				}
			}
			if len(h.Sessions) != want.sessions || prompts != want.prompts || answers != want.answers || records != want.records {
				t.Errorf("sessions %d, prompts %d, answers %d, records %d; want %+v", len(h.Sessions), prompts, answers, records, want)
			}
		})
	}
	if checked != len(corpusCounts) {
		t.Errorf("%d of the %d counted corpus files were laid out", checked, len(corpusCounts))
	}
}

// countKey is a laid-out file's place below its bucket.
func countKey(dst string) string {
	parts := strings.Split(dst, "/")
	return strings.Join(parts[min(3, len(parts)):], "/")
}

func corpusFiles(t testing.TB) []string { return harnesstest.CorpusFiles(t, corpusDir, "*.jsonl") }

// TestCorpusAsCollected: the corpus files where they lie, out of their
// products' places (as in a folder of collected histories), are claimed
// where a metadata line opens them and give sessions of distinct IDs, so
// that indexing them together loses none.
func TestCorpusAsCollected(t *testing.T) {
	ids := map[string]string{}
	for _, path := range corpusFiles(t) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		h := harness.ParseFile(Reader{}, data, harness.ParseOptions{Path: path})
		harnesstest.CheckParse(t, h, len(data), Reader{}, 0)
		if len(h.Refused) > 0 {
			t.Errorf("%s: refused %q", filepath.Base(path), h.Refused)
		}
		for _, s := range h.Sessions {
			if other, ok := ids[s.ID]; ok {
				t.Errorf("%s and %s both give the session %s", filepath.Base(other), filepath.Base(path), s.ID)
			}
			ids[s.ID] = path
		}
	}
	if len(ids) == 0 {
		t.Error("no session read")
	}
}
