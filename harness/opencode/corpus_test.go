package opencode

import (
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

const corpusDir = harnesstest.SharedCorpus + "opencode"

func corpusStores(t testing.TB) []string {
	return harnesstest.CorpusFiles(t, corpusDir, "*.db")
}

// rawPart is a part decoded independently of the reader, with
// encoding/json, to check the reader against.
type rawPart struct {
	Type      string `json:"type"`
	Text      string `json:"text"`
	Synthetic bool   `json:"synthetic"`
	Tool      string `json:"tool"`
	State     struct {
		Status string         `json:"status"`
		Input  map[string]any `json:"input"`
		Output string         `json:"output"`
	} `json:"state"`
}

// TestCorpusStores checks each real store against its rows: every typed
// user text part in exactly one user message, no tool output in any
// message, every completed edit or write a file record, every started
// bash call a command record, child sessions linked to their parent.
func TestCorpusStores(t *testing.T) {
	var prompts, edits, shells int
	for _, path := range corpusStores(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			h, err := ReadStore(context.Background(), path, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(h.Warnings) > 0 {
				t.Errorf("warnings on a real store: %q", h.Warnings)
			}
			db, err := sql.Open("sqlite", harness.StoreDSN(path, true))
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			byID := map[string]*harness.Session{}
			for i := range h.Sessions {
				byID[h.Sessions[i].ID] = &h.Sessions[i]
			}
			var sessions int
			rows, err := db.Query(`SELECT id, COALESCE(parent_id, ''), directory FROM session`)
			if err != nil {
				t.Fatal(err)
			}
			for rows.Next() {
				var id, parent, dir string
				rows.Scan(&id, &parent, &dir)
				sessions++
				s := byID[IDPrefix+id]
				if s == nil {
					t.Errorf("session %s not read", id)
					continue
				}
				if s.Project != dir || (parent != "") != s.Subagent || (parent != "" && s.Parent != IDPrefix+parent) {
					t.Errorf("session %s: project %q parent %q subagent %v; row says %q %q", id, s.Project, s.Parent, s.Subagent, dir, parent)
				}
			}
			rows.Close()
			if sessions != len(h.Sessions) {
				t.Errorf("%d sessions read, %d in the store", len(h.Sessions), sessions)
			}

			rows, err = db.Query(`SELECT p.session_id, json_extract(m.data, '$.role'), p.data FROM part p JOIN message m ON m.id = p.message_id`)
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			for rows.Next() {
				var sid, role, data string
				if err := rows.Scan(&sid, &role, &data); err != nil {
					t.Fatal(err)
				}
				var p rawPart
				if err := json.Unmarshal([]byte(data), &p); err != nil {
					t.Fatal(err)
				}
				s := byID[IDPrefix+sid]
				if s == nil {
					continue
				}
				switch {
				case p.Type == "text" && role == "user" && !p.Synthetic && strings.TrimSpace(p.Text) != "":
					prompts++
					n := 0
					for _, m := range s.Messages {
						// A message joins its text parts with blank lines.
						if m.Role == harness.User && strings.Contains("\n\n"+m.Text+"\n\n", "\n\n"+strings.TrimSpace(p.Text)+"\n\n") {
							n++
						}
					}
					if n != 1 {
						t.Errorf("typed text %.60q is in %d user messages of %s", p.Text, n, sid)
					}
				case p.Type == "tool":
					if len(p.State.Output) >= 40 {
						for _, m := range s.Messages {
							if strings.Contains(m.Text, p.State.Output) {
								t.Errorf("message of %s holds %s output %.60q", sid, p.Tool, p.State.Output)
							}
						}
					}
					switch {
					case (p.Tool == "edit" || p.Tool == "write") && p.State.Status == "completed":
						edits++
						want := relative(p.State.Input["filePath"].(string), s.Project)
						if !hasRecord(s, harness.FileRecord, want, harness.Edited) {
							t.Errorf("%s of %s has no edited file record", p.Tool, want)
						}
					case p.Tool == "bash" && p.State.Status != "pending":
						shells++
						cmd := strings.TrimSpace(p.State.Input["command"].(string))
						if !hasRecord(s, harness.CommandRecord, cmd, "") {
							t.Errorf("bash %.60q has no command record", cmd)
						}
					}
				}
			}
		})
	}
	if prompts < 10 || edits < 10 || shells < 20 {
		t.Errorf("checked %d prompts, %d edits, %d commands: too few to mean anything", prompts, edits, shells)
	}
}

func hasRecord(s *harness.Session, kind harness.RecordKind, value string, action harness.FileAction) bool {
	for _, r := range s.Records {
		if r.Kind == kind && r.Value == value && r.Action == action {
			return true
		}
	}
	return false
}

// TestCorpusStorage rebuilds the corpus's JSON storage files (saved under
// flattened names) into their trees and reads them: the 1.1.48 session
// of Anshgrag/amazon-tools-dashboard and the 0.5.28 one of
// Saintcyberwarrior/dotfiles.
func TestCorpusStorage(t *testing.T) {
	corpusStores(t)
	cases := []struct {
		prefix, tree string
		id, project  string
		// first is the first message: the corpus holds the assistant's
		// message of the 1.1.48 turn, not its user's.
		role    harness.Role
		first   string
		records []string
	}{
		{"Anshgrag__amazon-tools-dashboard__.local_share_opencode_storage_", "storage", "opencode-ses_3e69013d7ffeBnbSOusmvWzwo1", "/home/bot4u/Desktop/EYE",
			harness.Assistant, "I'll build a complete full-stack", []string{"command mkdir -p frontend backend/model backend/utils training", "file requirements.txt"}},
		{"Saintcyberwarrior__dotfiles__.local_share_opencode_project_global_storage_", "project/global/storage", "opencode-ses_4343439b2ffe8vCbtGr04gHePJ", "/nix/store/ppk3skznrmkrcx3pknp0337d9sv97lsd-system-path/bin",
			harness.User, "Explain surface codes in Quantum error correction", nil},
	}
	for _, c := range cases {
		t.Run(c.tree, func(t *testing.T) {
			root := filepath.Join(t.TempDir(), filepath.FromSlash(c.tree))
			files, _ := filepath.Glob(filepath.Join(corpusDir, c.prefix+"*.json"))
			for _, f := range files {
				rel := unflatten(strings.TrimPrefix(filepath.Base(f), c.prefix))
				data, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				p := filepath.Join(root, rel)
				os.MkdirAll(filepath.Dir(p), 0o755)
				if err := os.WriteFile(p, data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			h, err := ReadStorage(context.Background(), root)
			if err != nil {
				t.Fatal(err)
			}
			if len(h.Warnings) > 0 || len(h.Sessions) != 1 {
				t.Fatalf("warnings %q, %d sessions", h.Warnings, len(h.Sessions))
			}
			s := h.Sessions[0]
			if s.ID != c.id || s.Project != c.project {
				t.Errorf("id %s project %s", s.ID, s.Project)
			}
			if len(s.Messages) == 0 || s.Messages[0].Role != c.role || !strings.HasPrefix(s.Messages[0].Text, c.first) {
				t.Errorf("first message %+v", s.Messages)
			}
			var got []string
			for _, r := range s.Records {
				got = append(got, string(r.Kind)+" "+r.Value)
			}
			if strings.Join(got, "|") != strings.Join(c.records, "|") {
				t.Errorf("records %q, want %q", got, c.records)
			}
		})
	}
}

// unflatten turns a saved name's tail back into its path in the tree:
// session_global_ses_X.json → session/global/ses_X.json,
// message_ses_X_msg_Y.json → message/ses_X/msg_Y.json, and the 0.5
// session_info_…, session_message_…, session_part_… forms likewise.
func unflatten(name string) string {
	var parts []string
	rest := name
	for _, pre := range []string{"session_info_", "session_message_", "session_part_", "session_global_", "message_", "part_"} {
		if strings.HasPrefix(rest, pre) {
			parts = append(parts, strings.Split(strings.TrimSuffix(pre, "_"), "_")...)
			rest = strings.TrimPrefix(rest, pre)
			break
		}
	}
	// The rest is ids joined by "_", each starting with a known prefix.
	var ids []string
	for _, seg := range strings.Split(rest, "_") {
		if seg == "ses" || seg == "msg" || seg == "prt" {
			ids = append(ids, seg)
			continue
		}
		ids[len(ids)-1] += "_" + seg
	}
	return filepath.Join(append(parts, ids...)...)
}

// TestCorpusOutcomes checks the outcomes and spans of every real store
// against its rows, decoded with encoding/json: each bash call that
// recorded an exit status has a command record with exactly that exit,
// no command record has an exit its rows lack, a call marked "error" has
// a failed record, and each applied edit or write with new text has a
// record of its file carrying non-empty new text.
func TestCorpusOutcomes(t *testing.T) {
	var exits, spans int
	for _, path := range corpusStores(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			h, err := ReadStore(context.Background(), path, nil)
			if err != nil {
				t.Fatal(err)
			}
			byID := map[string]*harness.Session{}
			for i := range h.Sessions {
				byID[h.Sessions[i].ID] = &h.Sessions[i]
			}
			db, err := openForTest(path)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			rows, err := db.Query(`SELECT session_id, data FROM part`)
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			type call struct {
				sid, cmd string
				exit     int
			}
			rawExits := map[call]bool{}
			for rows.Next() {
				var sid, data string
				if err := rows.Scan(&sid, &data); err != nil {
					t.Fatal(err)
				}
				var p struct {
					Tool  string `json:"tool"`
					State struct {
						Status   string         `json:"status"`
						Input    map[string]any `json:"input"`
						Metadata struct {
							Exit *int `json:"exit"`
						} `json:"metadata"`
					} `json:"state"`
				}
				if err := json.Unmarshal([]byte(data), &p); err != nil {
					t.Fatal(err)
				}
				s := byID[IDPrefix+sid]
				if s == nil {
					continue
				}
				in := p.State.Input
				switch {
				case p.Tool == "bash" && p.State.Status == "completed" && p.State.Metadata.Exit != nil:
					exits++
					c := call{sid, strings.TrimSpace(in["command"].(string)), *p.State.Metadata.Exit}
					rawExits[c] = true
					if !hasOutcome(s, func(r harness.Record) bool {
						return r.Kind == harness.CommandRecord && r.Value == c.cmd && r.Outcome.Exit != nil && *r.Outcome.Exit == c.exit
					}) {
						t.Errorf("bash %.60q exited %d; no record says so", c.cmd, c.exit)
					}
				case p.State.Status == "error" && (p.Tool == "bash" || p.Tool == "edit" || p.Tool == "write"):
					if !hasOutcome(s, func(r harness.Record) bool { return r.Outcome.Status == harness.Failed }) {
						t.Errorf("%s failed; no record says so", p.Tool)
					}
				case (p.Tool == "edit" || p.Tool == "write") && p.State.Status == "completed":
					text, _ := in["newString"].(string)
					if p.Tool == "write" {
						text, _ = in["content"].(string)
					}
					if text == "" {
						continue
					}
					spans++
					file := relative(in["filePath"].(string), s.Project)
					if !hasOutcome(s, func(r harness.Record) bool {
						return r.Kind == harness.FileRecord && r.Value == file && r.Span.New != "" && r.Span.Whole == (p.Tool == "write")
					}) {
						t.Errorf("%s of %s has no record with its new text", p.Tool, file)
					}
				}
			}
			for _, s := range h.Sessions {
				for _, r := range s.Records {
					if r.Outcome.Exit != nil && !rawExits[call{strings.TrimPrefix(s.ID, IDPrefix), r.Value, *r.Outcome.Exit}] {
						t.Errorf("command %.60q has exit %d, which no row records", r.Value, *r.Outcome.Exit)
					}
				}
			}
		})
	}
	if exits < 20 || spans < 10 {
		t.Errorf("checked %d exits and %d spans: too few to mean anything", exits, spans)
	}
}

func hasOutcome(s *harness.Session, match func(harness.Record) bool) bool {
	for _, r := range s.Records {
		if match(r) {
			return true
		}
	}
	return false
}
