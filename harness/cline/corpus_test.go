package cline

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

const corpusDir = harnesstest.SharedCorpus + "cline"

// corpusFiles are the corpus histories, where the test lays each out as
// the agent writes it (below a scratch home), and the counts a second,
// independent reading established: a Python script loading each file with
// json.load, counting a prompt per user message with a non-empty text
// block (SDK) or a text block opening with <task>, <feedback>, <answer> or
// <user_message> (task folders), and a record per file or command named by
// the read, edit and command tools (read_file, read_files' files, editor,
// write_to_file, replace_in_file, execute_command, run_commands' commands)
// and per attached file block.
var corpusFiles = []struct {
	file, layout, side, sideLayout string
	id, project, parent            string
	prompts, records               int
}{
	{
		file:   "cline__cline__sdk_packages_core_fixtures_messages_success.messages.json",
		layout: ".cline/data/sessions/fixture-success-01/fixture-success-01.messages.json",
		id:     "cline-fixture-success-01", prompts: 1, records: 1,
	},
	{
		file:       "cline__cline__sdk_packages_core_fixtures_session_session.messages.json",
		layout:     ".cline/data/sessions/1784094124598_rruoq/1784094124598_rruoq.messages.json",
		side:       "cline__cline__sdk_packages_core_fixtures_session_session.json",
		sideLayout: ".cline/data/sessions/1784094124598_rruoq/1784094124598_rruoq.json",
		id:         "cline-1784094124598_rruoq", project: "/Users/example/dev/cline", parent: "cline-1784094053271_p8pzo",
		prompts: 5, records: 12,
	},
	{
		file:       "gmfstu__Online-Card-Architecture__exported_conversation_1769053680585_api_conversation_history.json",
		layout:     ".config/Code/User/globalStorage/saoudrizwan.claude-dev/tasks/1769053680585/api_conversation_history.json",
		side:       "gmfstu__Online-Card-Architecture__exported_conversation_1769053680585_ui_messages.json",
		sideLayout: ".config/Code/User/globalStorage/saoudrizwan.claude-dev/tasks/1769053680585/ui_messages.json",
		id:         "cline-1769053680585", project: "/workspaces/Online-Card-Architecture",
		prompts: 1, records: 45,
	},
}

// layCorpus copies the corpus files into a scratch home as the agent lays
// them out and returns the home.
func layCorpus(t *testing.T) string {
	layout := map[string]string{}
	for _, c := range corpusFiles {
		layout[c.file] = c.layout
		if c.side != "" {
			layout[c.side] = c.sideLayout
		}
	}
	return harnesstest.LayCorpus(t, corpusDir, layout)
}

func TestCorpus(t *testing.T) {
	home := layCorpus(t)
	d := Discover(harness.DiscoverOptions{Home: home})
	if len(d.Sources) != len(corpusFiles) || !d.Installed {
		t.Fatalf("discovered %d sources (installed %v), want %d: %+v", len(d.Sources), d.Installed, len(corpusFiles), d.Sources)
	}
	for _, c := range corpusFiles {
		t.Run(c.id, func(t *testing.T) {
			h, _ := harnesstest.ParseChecked(t, Reader{}, filepath.Join(home, filepath.FromSlash(c.layout)), 4096)
			if len(h.Sessions) != 1 || len(h.Warnings) != 0 {
				t.Fatalf("%d sessions, warnings %v; want 1 and none", len(h.Sessions), h.Warnings)
			}
			s := h.Sessions[0]
			prompts := 0
			for _, m := range s.Messages {
				if m.Role == harness.User {
					prompts++
				}
			}
			if s.ID != c.id || s.Project != c.project || s.Parent != c.parent || s.Subagent {
				t.Errorf("session %s project %q parent %q subagent %v; want %s %q %q false", s.ID, s.Project, s.Parent, s.Subagent, c.id, c.project, c.parent)
			}
			if prompts != c.prompts || len(s.Records) != c.records {
				t.Errorf("%d prompts and %d records, want %d and %d", prompts, len(s.Records), c.prompts, c.records)
			}
			if !s.HasStart() {
				t.Error("no start time")
			}
		})
	}
	// The files beside a history are not histories.
	for _, name := range []string{"gmfstu__Online-Card-Architecture__exported_conversation_1769053680585_ui_messages.json", "gmfstu__Online-Card-Architecture__exported_conversation_1769053680585_task_metadata.json", "cline__cline__sdk_packages_core_fixtures_session_session.json"} {
		data, err := os.ReadFile(filepath.Join(corpusDir, name))
		if err != nil {
			t.Fatal(err)
		}
		if (Reader{}).Sniff(filepath.Join(corpusDir, name), data) == nil {
			t.Errorf("Sniff accepts %s", name)
		}
	}
}
