package pi

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// corpusRoot holds real transcripts beside the repository, in its pi and
// openclaw folders.
const corpusRoot = harnesstest.SharedCorpus

// corpusFiles are the corpus transcripts, where the test lays each out as
// its agent writes it (below a scratch home), and the counts a second,
// independent reading established: a Python script loading each line with
// json.loads, counting a prompt per user message with non-empty text, a
// prose message per assistant message with a non-empty text block, and a
// record per distinct (tool, path or command, turn) of the read, edit,
// write, bash and exec tool calls, leaving out file calls whose
// toolResult has isError.
var corpusFiles = []struct {
	file, layout, id, project string
	prompts, prose, records   int
}{
	{
		file:    "pi/LAF-US__IDAHO-VAULT__.pi_agent_sessions_--C--Users-loganf-Documents-IDAHO-VAULT--_2026-04-20T03-20-25-829Z_019da8e7-53e5-77d8-ad66-8096de722bcd.jsonl",
		layout:  ".pi/agent/sessions/--C--Users-loganf-Documents-IDAHO-VAULT--/2026-04-20T03-20-25-829Z_019da8e7-53e5-77d8-ad66-8096de722bcd.jsonl",
		id:      "pi-019da8e7-53e5-77d8-ad66-8096de722bcd",
		project: `C:\Users\loganf\Documents\IDAHO-VAULT`,
		prompts: 5, prose: 5, records: 0,
	},
	{
		file:    "pi/LAF-US__IDAHO-VAULT__.pi_agent_sessions_--C--Users-loganf-Documents-IDAHO-VAULT--_2026-04-20T03-24-41-541Z_019da8eb-3ac5-718a-87b3-276b77c76497.jsonl",
		layout:  ".pi/agent/sessions/--C--Users-loganf-Documents-IDAHO-VAULT--/2026-04-20T03-24-41-541Z_019da8eb-3ac5-718a-87b3-276b77c76497.jsonl",
		id:      "pi-019da8eb-3ac5-718a-87b3-276b77c76497",
		project: `C:\Users\loganf\Documents\IDAHO-VAULT`,
		prompts: 7, prose: 19, records: 27,
	},
	{
		file:    "openclaw/LAF-US__IDAHO-VAULT__.openclaw_agents_main_sessions_10f38658-0dc1-4fd6-b8f9-8814e1a93ec8.jsonl",
		layout:  ".openclaw/agents/main/sessions/10f38658-0dc1-4fd6-b8f9-8814e1a93ec8.jsonl",
		id:      "openclaw-10f38658-0dc1-4fd6-b8f9-8814e1a93ec8",
		project: `C:\Users\loganf\.openclaw\workspace`,
		prompts: 1, prose: 0, records: 0,
	},
}

const corpusStore = "openclaw/LAF-US__IDAHO-VAULT__.openclaw_agents_main_sessions_sessions.json"

// layCorpus copies the corpus into a scratch home as the agents lay it
// out and returns the home.
func layCorpus(t *testing.T) string {
	layout := map[string]string{corpusStore: ".openclaw/agents/main/sessions/sessions.json"}
	for _, c := range corpusFiles {
		layout[c.file] = c.layout
	}
	return harnesstest.LayCorpus(t, corpusRoot, layout)
}

func TestCorpus(t *testing.T) {
	home := layCorpus(t)
	d := Discover(harness.DiscoverOptions{Home: home})
	if len(d.Sources) != len(corpusFiles) || !d.Installed || len(d.Warnings) > 0 {
		t.Fatalf("discovered %d sources (installed %v, warnings %v), want %d", len(d.Sources), d.Installed, d.Warnings, len(corpusFiles))
	}
	for _, c := range corpusFiles {
		t.Run(c.id, func(t *testing.T) {
			h, data := harnesstest.ParseChecked(t, Reader{}, filepath.Join(home, filepath.FromSlash(c.layout)), 8192)
			if len(h.Sessions) != 1 || len(h.Warnings) != 0 || len(h.Refused) != 0 {
				t.Fatalf("%d sessions, warnings %v, refused %v; want 1 and none", len(h.Sessions), h.Warnings, h.Refused)
			}
			s := h.Sessions[0]
			if s.ID != c.id || s.Project != c.project || s.Parent != "" || s.Subagent || !s.HasStart() || s.End != int64(len(data)) {
				t.Errorf("session %s project %q parent %q subagent %v start %v end %d; want %s %q, no parent, a start, end %d",
					s.ID, s.Project, s.Parent, s.Subagent, s.Started, s.End, c.id, c.project, len(data))
			}
			prompts, prose := 0, 0
			for _, m := range s.Messages {
				if m.Role == harness.User {
					prompts++
				} else {
					prose++
				}
			}
			if prompts != c.prompts || prose != c.prose || len(s.Records) != c.records {
				t.Errorf("%d prompts, %d prose messages, %d records; want %d, %d, %d", prompts, prose, len(s.Records), c.prompts, c.prose, c.records)
			}
		})
	}
	// The store beside the OpenClaw transcript names the key that holds it.
	got := (Reader{}).ResumeCommand("openclaw-10f38658-0dc1-4fd6-b8f9-8814e1a93ec8", filepath.Join(home, ".openclaw", "workspace"))
	if got != "openclaw tui --session agent:main:main" {
		t.Errorf("OpenClaw resume %q", got)
	}
	// The gateway's envelope is not part of the prompt.
	oc := filepath.Join(home, ".openclaw/agents/main/sessions/10f38658-0dc1-4fd6-b8f9-8814e1a93ec8.jsonl")
	data, _ := os.ReadFile(oc)
	h := harness.ParseFile(Reader{}, data, harness.ParseOptions{Path: oc})
	if m := h.Sessions[0].Messages[0]; m.Text != "Welcome to the VAULT..." {
		t.Errorf("OpenClaw prompt %q", m.Text)
	}
}
