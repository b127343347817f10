package codex

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

const corpusDir = harnesstest.SharedCorpus + "codex"

func corpusFiles(t testing.TB) []string {
	return harnesstest.CorpusFiles(t, corpusDir, "*rollout-*.jsonl")
}

// counts is what a generic reading of a rollout finds: the user_message
// events (the typed text), tool outputs, apply_patch calls and shell calls.
type counts struct {
	typed          []string
	outputs        []string
	patches, shell int
}

func count(data []byte) counts {
	var c counts
	lastTyped := ""
	for _, l := range strings.Split(string(data), "\n") {
		var v struct {
			Timestamp string         `json:"timestamp"`
			Type      string         `json:"type"`
			Payload   map[string]any `json:"payload"`
		}
		if json.Unmarshal([]byte(l), &v) != nil || v.Payload == nil {
			continue
		}
		p := v.Payload
		switch {
		case v.Type == "event_msg" && p["type"] == "user_message":
			// A request written twice at one instant is one request.
			if s, _ := p["message"].(string); strings.TrimSpace(s) != "" && v.Timestamp+s != lastTyped {
				c.typed = append(c.typed, strings.TrimSpace(s))
				lastTyped = v.Timestamp + s
			}
		case v.Type == "response_item" && (p["type"] == "function_call_output" || p["type"] == "custom_tool_call_output"):
			if s, _ := p["output"].(string); len(s) > 60 {
				c.outputs = append(c.outputs, s)
			}
		case v.Type == "response_item" && (p["type"] == "function_call" || p["type"] == "custom_tool_call"):
			switch p["name"] {
			case "apply_patch":
				c.patches++
			case "shell", "shell_command", "exec_command":
				c.shell++
			}
		}
	}
	return c
}

// TestCorpusInvariants checks every real wrapped rollout: each typed user
// message lands in exactly one message, so none is read twice from the
// double log; no tool output is in a message; every apply_patch call
// yields a file edited and every shell call a record.
func TestCorpusInvariants(t *testing.T) {
	harnesstest.EachFile(t, corpusFiles(t), func(t *testing.T, path string, data []byte) {
		h := Parse(data, harness.ParseOptions{Path: path})
		harnesstest.CheckInvariants(t, h, 0, len(data))
		c := count(data)
		var users, texts []string
		files, commands := 0, 0
		for _, s := range h.Sessions {
			for _, m := range s.Messages {
				texts = append(texts, m.Text)
				if m.Role == harness.User {
					users = append(users, m.Text)
				}
			}
			for _, r := range s.Records {
				if r.Kind == harness.FileRecord {
					files++
				} else {
					commands++
				}
			}
		}
		if len(c.typed) > 0 && strings.Join(users, "\x00") != strings.Join(c.typed, "\x00") {
			t.Errorf("%d user messages, want the %d typed ones once each", len(users), len(c.typed))
		}
		for i := 1; i < len(texts); i++ {
			if texts[i] == texts[i-1] {
				t.Errorf("message %.60q read twice in a row", texts[i])
			}
		}
		for _, o := range c.outputs {
			for _, m := range texts {
				if strings.Contains(m, o) {
					t.Errorf("tool output %.60q is in a message", o)
				}
			}
		}
		if c.patches > 0 && files < c.patches {
			t.Errorf("%d file records for %d apply_patch calls", files, c.patches)
		}
		if files+commands < c.patches+c.shell {
			t.Errorf("%d records for %d patch and shell calls", files+commands, c.patches+c.shell)
		}
	})
}

// TestCorpusSniff pins that every real rollout is claimed from the head
// the indexer reads (8 KiB), long instructions in its first line or not,
// and that Codex's history.jsonl is taken for the prompt history it is
// ([X10]): each line a prompt linked to its session, none a rollout.
func TestCorpusSniff(t *testing.T) {
	var r Reader
	harnesstest.CheckSniffHeads(t, corpusFiles(t), func(path string, head []byte) error {
		return r.Sniff("/home/u/.codex/sessions/"+filepath.Base(path), head)
	})
	hist, err := os.ReadFile(filepath.Join(corpusDir, "Xu-Wentao__dotfile__.codex_history.jsonl"))
	if err != nil {
		t.Skip(err)
	}
	const path = "/home/u/.codex/history.jsonl"
	if err := r.Sniff(path, hist); err != nil {
		t.Fatalf("the prompt history was refused: %v", err)
	}
	h := harness.ParseFile(r, hist, harness.ParseOptions{Path: path})
	lines := bytes.Count(hist, []byte("\n"))
	if len(h.Sessions) == 0 || len(h.Sessions) > lines || len(h.Warnings) > 0 || len(h.Refused) > 0 {
		t.Fatalf("%d sessions of %d lines, warnings %q, refused %q", len(h.Sessions), lines, h.Warnings, h.Refused)
	}
	for _, s := range h.Sessions {
		if !s.PromptOnly || len(s.Messages) != 1 || s.Messages[0].Role != harness.User || !r.ValidID(s.Parent) || s.Started.IsZero() {
			t.Errorf("session %+v is not a dated prompt linked to its session", s)
		}
	}
}
