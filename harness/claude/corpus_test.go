package claude

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

const corpusDir = harnesstest.SharedCorpus + "claude-code"

func corpusFiles(t testing.TB) []string {
	return harnesstest.CorpusFiles(t, corpusDir, "*.jsonl")
}

// expected is what an independent, generic reading of a transcript counts:
// the typed user lines, the tool results' texts, and the edit, read and
// Bash calls.
type expected struct {
	typed                []string
	results              []string
	edits, reads, shells int
}

func expect(t *testing.T, data []byte, own string) expected {
	var e expected
	seen := map[string]bool{}
	for _, l := range strings.Split(string(data), "\n") {
		var v map[string]any
		if json.Unmarshal([]byte(l), &v) != nil {
			continue
		}
		typ, _ := v["type"].(string)
		uuid, _ := v["uuid"].(string)
		if uuid != "" && seen[uuid] {
			continue
		}
		seen[uuid] = true
		side, _ := v["isSidechain"].(bool)
		if sid, _ := v["sessionId"].(string); !side && own != "" && sid != own {
			continue
		}
		msg, _ := v["message"].(map[string]any)
		if msg == nil {
			continue
		}
		switch typ {
		case "user":
			if v["isMeta"] == true || v["isCompactSummary"] == true {
				continue
			}
			switch c := msg["content"].(type) {
			case string:
				if s := strings.TrimSpace(c); s != "" && !injected(s) {
					e.typed = append(e.typed, s)
				}
			case []any:
				var text []string
				result := false
				for _, b := range c {
					bm, _ := b.(map[string]any)
					switch bm["type"] {
					case "tool_result":
						result = true
						if s, ok := bm["content"].(string); ok && len(s) > 40 {
							e.results = append(e.results, s)
						}
					case "text":
						text = append(text, strings.TrimSpace(bm["text"].(string)))
					}
				}
				if s := strings.Join(text, "\n\n"); !result && s != "" && !injected(s) {
					e.typed = append(e.typed, s)
				}
			}
		case "assistant":
			c, _ := msg["content"].([]any)
			for _, b := range c {
				bm, _ := b.(map[string]any)
				if bm["type"] != "tool_use" {
					continue
				}
				switch bm["name"] {
				case "Edit", "MultiEdit", "Write", "NotebookEdit":
					e.edits++
				case "Read":
					e.reads++
				case "Bash":
					e.shells++
				}
			}
		}
	}
	return e
}

// TestCorpusInvariants checks every real transcript: each typed user
// message lands in exactly one message, no tool result's text is in a
// message, every edit or write call is a file edited, every read a file
// read, every Bash call a command, and subagents are linked to a parent.
func TestCorpusInvariants(t *testing.T) {
	harnesstest.EachFile(t, corpusFiles(t), func(t *testing.T, path string, data []byte) {
		h := Parse(data, harness.ParseOptions{Path: path})
		harnesstest.CheckInvariants(t, h, 0, len(data))
		if len(h.Warnings) > 0 {
			t.Errorf("warnings on a real transcript: %v", h.Warnings)
		}
		e := expect(t, data, lastSessionID(data))
		var users []string
		var texts []string
		edits, reads, shells := 0, 0, 0
		for _, s := range h.Sessions {
			if s.Subagent && !strings.HasPrefix(s.Parent, "claude-") {
				t.Errorf("subagent %s is not linked: parent %q", s.ID, s.Parent)
			}
			for _, m := range s.Messages {
				texts = append(texts, m.Text)
				if m.Role == harness.User {
					users = append(users, m.Text)
				}
			}
			for _, r := range s.Records {
				switch {
				case r.Kind == harness.FileRecord && r.Action == harness.Edited:
					edits++
				case r.Kind == harness.FileRecord && r.Action == harness.Read:
					reads++
				case r.Kind == harness.CommandRecord:
					shells++
				}
			}
		}
		if strings.Join(users, "\x00") != strings.Join(e.typed, "\x00") {
			t.Errorf("user messages %q, want the typed lines %q", users, e.typed)
		}
		for _, r := range e.results {
			for _, m := range texts {
				if strings.Contains(m, r) {
					t.Errorf("tool result %.60q is in a message", r)
				}
			}
		}
		if edits != e.edits || reads != e.reads || shells != e.shells {
			t.Errorf("records: %d edited, %d read, %d commands; want %d, %d, %d", edits, reads, shells, e.edits, e.reads, e.shells)
		}
	})
}

// TestCorpusSniff pins that every real transcript is claimed from the
// head the indexer reads (8 KiB).
func TestCorpusSniff(t *testing.T) { harnesstest.CheckSniffHeads(t, corpusFiles(t), Reader{}.Sniff) }
