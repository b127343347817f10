package cursor

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// corpusDir holds real Cursor stores and transcripts collected from public
// repositories (MANIFEST.tsv beside it).
const corpusDir = harnesstest.SharedCorpus + "cursor"

// corpusWant is what a file of the corpus holds, counted by a second,
// independent reading: a Python script (sqlite3 and json from its standard
// library) that, for a store, took composer.composerData's allComposers
// with a non-empty conversation as sessions, bubbles of type 1 with text
// as prompts, of type 2 with text as answers, and the distinct files of
// type-2 codeBlocks[].uri per turn as records, and the tabs of the old
// chat panel (workbench.panel.aichat.view.aichat.chatdata) with text as
// sessions, their "user" and "ai" bubbles with text as prompts and
// answers (5 tabs, 22 and 22; their codeBlocks are empty); and for a transcript, user
// lines with a non-empty <user_query> as prompts, assistant lines with
// text as answers, and the distinct Shell commands, Read paths and
// Write/StrReplace/Delete paths per turn as records. The composerData rows
// of the 2025-layout store are all empty (fullConversationHeadersOnly
// []), and the legacy aichat store holds no key this reader reads. For
// the cursor-agent chat it walked the root blob's protobuf by hand (field
// 1, 32-byte ids, in order), took user messages with a non-empty
// <user_query> as prompts, assistant messages with text as answers, and
// the distinct read_file/edit_file/run_terminal_cmd arguments per turn as
// records.
type corpusWant struct {
	sessions, prompts, answers, records int
}

var corpusFiles = map[string]corpusWant{
	"slevin48__cursor-history__state.vscdb.derived.db":                                                                                                                                                                      {31, 63, 63, 117},
	"Ebenezer-A__dotfiles__.config_Cursor_User_globalStorage_state.vscdb.derived.db":                                                                                                                                        {0, 0, 0, 0},
	"spacedouut__dotfiles__.config_Cursor_User_globalStorage_state.vscdb.derived.db":                                                                                                                                        {0, 0, 0, 0},
	"yeungsinchun__dotfiles__.cursor_projects_1778595602274_agent-transcripts_49e61f38-1c12-4ef0-9c30-0d198d062a0f_49e61f38-1c12-4ef0-9c30-0d198d062a0f.jsonl":                                                              {1, 1, 1, 0},
	"yeungsinchun__dotfiles__.cursor_projects_Users-sinchunyeung-Desktop_agent-transcripts_5b27333a-78ce-44be-a1e2-bdf1223b719e_5b27333a-78ce-44be-a1e2-bdf1223b719e.jsonl.excerpt_selected_lines":                          {1, 4, 4, 5},
	"yeungsinchun__dotfiles__.cursor_projects_Users-sinchunyeung-Documents-Documents-SinMacBookPro-trip-Taipei_agent-transcripts_42a3c4c5-58b0-4b38-b910-40abd9403275_subagents_6d9f354a-cf34-4cfa-952a-d7cdb33f29ea.jsonl": {1, 1, 1, 0},
}

// transcriptPlace is where a collected transcript or chat lay under
// ~/.cursor, read back from its saved name: the reader names a session by
// its place.
func transcriptPlace(name string) string {
	if rest, ok := strings.CutPrefix(name, "brow__dotfiles__.cursor_chats_"); ok {
		folder, rest, _ := strings.Cut(rest, "_")
		agent, _, _ := strings.Cut(rest, "_")
		return filepath.Join(".cursor", "chats", folder, agent, agentStoreName)
	}
	rest := strings.TrimPrefix(name, "yeungsinchun__dotfiles__.cursor_projects_")
	rest = strings.TrimSuffix(rest, ".excerpt_selected_lines")
	slug, rest, _ := strings.Cut(rest, "_agent-transcripts_")
	parts := strings.Split(rest, "_")
	return filepath.Join(append([]string{".cursor", "projects", slug, transcriptsDir}, parts...)...)
}

// isTranscript reports whether the corpus file name is a transcript or an
// agent chat, which the reader finds only in its place under ~/.cursor.
func isTranscript(name string) bool {
	return strings.Contains(name, ".jsonl") || strings.Contains(name, "_chats_")
}

func TestCorpus(t *testing.T) {
	layout := map[string]string{}
	for name := range corpusFiles {
		if isTranscript(name) {
			layout[name] = filepath.ToSlash(transcriptPlace(name))
		}
	}
	home := harnesstest.LayCorpus(t, corpusDir, layout)
	for name, want := range corpusFiles {
		t.Run(name, func(t *testing.T) {
			path, opts := filepath.Join(corpusDir, name), harness.ParseOptions{}
			if isTranscript(name) {
				path, opts.Location = filepath.Join(home, transcriptPlace(name)), time.UTC
				data, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				if err := (Reader{}).Sniff(path, data); err != nil {
					t.Fatal(err)
				}
			}
			opts.Path = path
			h, err := harness.ReadStore(context.Background(), Reader{}, path, opts)
			if err != nil {
				t.Fatal(err)
			}
			harnesstest.CheckInvariants(t, &harness.History{Sessions: withoutRanges(h.Sessions)}, 0, 0)
			harnesstest.CheckValidIDs(t, h, Reader{}.ValidID)
			var got corpusWant
			got.sessions = len(h.Sessions)
			for _, s := range h.Sessions {
				for _, m := range s.Messages {
					if m.Role == harness.User {
						got.prompts++
					} else {
						got.answers++
					}
				}
				got.records += len(s.Records)
			}
			if got != want {
				t.Errorf("got %+v, want %+v", got, want)
			}
			if len(h.Refused) > 0 {
				t.Errorf("refused: %v", h.Refused)
			}
		})
	}
}

// TestCorpusSubagent checks the collected subagent transcript is linked to
// the session whose directory holds it.
func TestCorpusSubagent(t *testing.T) {
	for name := range corpusFiles {
		if !strings.Contains(name, "_subagents_") {
			continue
		}
		id, parent, ok := transcriptIDs(filepath.Join("/h", transcriptPlace(name)))
		if !ok || id != transcriptPrefix+"6d9f354a-cf34-4cfa-952a-d7cdb33f29ea" || parent != transcriptPrefix+"42a3c4c5-58b0-4b38-b910-40abd9403275" {
			t.Errorf("ids %q, parent %q, ok %v", id, parent, ok)
		}
	}
}
