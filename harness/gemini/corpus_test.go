package gemini

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deja-dev/deja/harness"
)

// rawRecord is a corpus line decoded independently of the parser, with
// encoding/json, to check the parser against.
type rawRecord struct {
	SessionID string          `json:"sessionId"`
	ID        string          `json:"id"`
	Type      string          `json:"type"`
	Content   json.RawMessage `json:"content"`
	ToolCalls []struct {
		Name   string         `json:"name"`
		Status string         `json:"status"`
		Args   map[string]any `json:"args"`
		Result []struct {
			FunctionResponse struct {
				Response map[string]any `json:"response"`
			} `json:"functionResponse"`
		} `json:"result"`
	} `json:"toolCalls"`
}

// corpusRecords returns a recording's message records, the last copy of
// each id, in first-seen order, and its session id. The corpus holds no
// $rewindTo, and its only $set of messages is the one-checkpoint fixture.
func corpusRecords(t *testing.T, data []byte, legacy bool) ([]rawRecord, string) {
	var recs []rawRecord
	var sid string
	if legacy {
		var f struct {
			SessionID string      `json:"sessionId"`
			Messages  []rawRecord `json:"messages"`
		}
		if err := json.Unmarshal(data, &f); err != nil {
			t.Fatal(err)
		}
		return f.Messages, f.SessionID
	}
	index := map[string]int{}
	for _, l := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(l) == "" {
			continue
		}
		var r rawRecord
		var set struct {
			Set struct {
				Messages []rawRecord `json:"messages"`
			} `json:"$set"`
		}
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("corpus line is not JSON: %v", err)
		}
		json.Unmarshal([]byte(l), &set)
		if len(set.Set.Messages) > 0 {
			recs, index = nil, map[string]int{}
			for _, m := range set.Set.Messages {
				index[m.ID] = len(recs)
				recs = append(recs, m)
			}
			continue
		}
		if r.Type == "" {
			if r.SessionID != "" {
				sid = r.SessionID
			}
			continue
		}
		if i, ok := index[r.ID]; ok {
			recs[i] = r
			continue
		}
		index[r.ID] = len(recs)
		recs = append(recs, r)
	}
	return recs, sid
}

func rawText(c json.RawMessage) string {
	var s string
	if json.Unmarshal(c, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	json.Unmarshal(c, &parts)
	var texts []string
	for _, p := range parts {
		if p.Text != "" {
			texts = append(texts, p.Text)
		}
	}
	return strings.Join(texts, "\n")
}

// TestCorpus checks each real recording against what its lines say: one
// session named by its sessionId, every typed prompt in exactly one user
// message, no tool output in any message, every successful edit or write
// a file record, every shell call a command record.
func TestCorpus(t *testing.T) {
	const project = "/home/anthonyguera"
	var prompts, edits, shells int
	// The corpus is listed before the count check is deferred: a clone
	// without it skips here, and a skipped test checks nothing.
	chats := corpusChats(t)
	defer func() {
		// The corpus has prompts, edits and shell calls; a test that
		// checked none of them would pass on anything.
		if prompts < 20 || edits < 10 || shells < 10 {
			t.Errorf("checked %d prompts, %d edited files, %d commands: too few", prompts, edits, shells)
		}
	}()
	for _, path := range chats {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			h := Parse(data, Options{Path: path, Project: func(string) string { return project }})
			if len(h.Warnings) > 0 {
				t.Errorf("warnings on a real file: %q", h.Warnings)
			}
			if len(h.Sessions) != 1 {
				t.Fatalf("%d sessions, want 1", len(h.Sessions))
			}
			s := h.Sessions[0]
			recs, sid := corpusRecords(t, data, strings.HasSuffix(path, ".json"))
			if s.ID != IDPrefix+sid {
				t.Errorf("ID %s, want %s", s.ID, IDPrefix+sid)
			}
			if s.End != int64(len(data)) {
				t.Errorf("session ends at %d of %d bytes", s.End, len(data))
			}
			typed := map[string]int{}
			var outputs []string
			files := map[string]bool{}
			commands := map[string]bool{}
			for _, r := range recs {
				text := rawText(r.Content)
				if r.Type == "user" && strings.TrimSpace(text) != "" {
					typed[text]++
				}
				for _, c := range r.ToolCalls {
					for _, res := range c.Result {
						if out, _ := res.FunctionResponse.Response["output"].(string); len(out) >= 40 {
							outputs = append(outputs, out)
						}
					}
					switch c.Name {
					case "replace", "write_file":
						if c.Status == "success" {
							files[relative(c.Args["file_path"].(string), project)] = true
						}
					case "run_shell_command":
						commands[strings.TrimSpace(c.Args["command"].(string))] = true
					}
				}
			}
			prompts, edits, shells = prompts+len(typed), edits+len(files), shells+len(commands)
			got := map[string]int{}
			for _, m := range s.Messages {
				if m.Role == harness.User {
					got[m.Text]++
				}
				for _, out := range outputs {
					if strings.Contains(m.Text, out) {
						t.Errorf("message at line %d holds tool output %.60q", m.Line, out)
					}
				}
			}
			for text, n := range typed {
				if got[text] != n {
					t.Errorf("typed prompt %.60q is in %d user messages, want %d", text, got[text], n)
				}
			}
			if len(got) != len(typed) {
				t.Errorf("%d distinct user messages, %d typed prompts", len(got), len(typed))
			}
			have := map[string]harness.FileAction{}
			cmds := map[string]bool{}
			for _, r := range s.Records {
				if r.Kind == harness.FileRecord && r.Action == harness.Edited {
					have[r.Value] = r.Action
				}
				if r.Kind == harness.CommandRecord {
					cmds[r.Value] = true
				}
			}
			for f := range files {
				if have[f] != harness.Edited {
					t.Errorf("edit of %s has no edited file record", f)
				}
			}
			for c := range commands {
				if !cmds[c] {
					t.Errorf("shell call %.60q has no command record", c)
				}
			}
		})
	}
}
