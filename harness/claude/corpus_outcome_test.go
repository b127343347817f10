package claude

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// wantOutcome is what a raw transcript says of one command or edit
// record: its status and exit code from the tool_result, and whether the
// call had new text.
type wantOutcome struct {
	status  harness.Status
	exit    string
	hasNew  bool
	command bool
}

// rawOutcomes reads, with a decode of its own, every Bash and edit call
// of a transcript's conversation lines, by the line of its tool_use, and
// the is_error flag and "Exit code N" of the tool_result that answers it.
func rawOutcomes(data []byte, own string) map[int][]*wantOutcome {
	byLine := map[int][]*wantOutcome{}
	byID := map[string][]*wantOutcome{}
	seen := map[string]bool{}
	for n, l := range strings.Split(string(data), "\n") {
		var v struct {
			Type        string `json:"type"`
			UUID        string `json:"uuid"`
			SessionID   string `json:"sessionId"`
			IsSidechain bool   `json:"isSidechain"`
			Message     struct {
				Content json.RawMessage `json:"content"`
			} `json:"message"`
		}
		if json.Unmarshal([]byte(l), &v) != nil {
			continue
		}
		var blocks []map[string]any
		if json.Unmarshal(v.Message.Content, &blocks) != nil {
			continue
		}
		for _, b := range blocks {
			if b["type"] != "tool_result" {
				continue
			}
			id, _ := b["tool_use_id"].(string)
			for _, w := range byID[id] {
				w.status = harness.Succeeded
				if b["is_error"] == true {
					w.status = harness.Failed
					text, _ := b["content"].(string)
					if rest, ok := strings.CutPrefix(text, "Exit code "); ok && w.command {
						code, _, _ := strings.Cut(rest, "\n")
						if _, err := strconv.Atoi(code); err == nil {
							w.exit = code
						}
					}
				}
			}
			delete(byID, id)
		}
		if v.Type != "assistant" || seen[v.UUID] || (!v.IsSidechain && v.SessionID != own) {
			continue
		}
		seen[v.UUID] = true
		for _, b := range blocks {
			in, _ := b["input"].(map[string]any)
			id, _ := b["id"].(string)
			nonEmpty := func(k string, m map[string]any) bool { s, _ := m[k].(string); return s != "" }
			var ws []*wantOutcome
			switch b["name"] {
			case "Bash":
				if c, _ := in["command"].(string); strings.TrimSpace(c) != "" {
					ws = append(ws, &wantOutcome{command: true})
				}
			case "Edit":
				ws = append(ws, &wantOutcome{hasNew: nonEmpty("new_string", in)})
			case "Write":
				ws = append(ws, &wantOutcome{hasNew: nonEmpty("content", in)})
			case "NotebookEdit":
				ws = append(ws, &wantOutcome{})
			case "MultiEdit":
				edits, _ := in["edits"].([]any)
				for _, e := range edits {
					em, _ := e.(map[string]any)
					ws = append(ws, &wantOutcome{hasNew: nonEmpty("new_string", em)})
				}
			}
			byLine[n+1] = append(byLine[n+1], ws...)
			byID[id] = ws
		}
	}
	return byLine
}

// TestCorpusOutcomes checks every real transcript: each Bash and edit
// record carries exactly the status and exit code its tool_result gives,
// and each edit whose call had new text keeps it.
func TestCorpusOutcomes(t *testing.T) {
	harnesstest.EachFile(t, corpusFiles(t), func(t *testing.T, path string, data []byte) {
		own := fileSessionID(path)
		if own == "" {
			own = lastSessionID(data)
		}
		want := rawOutcomes(data, own)
		got := map[int][]harness.Record{}
		for _, s := range Parse(data, harness.ParseOptions{Path: path}).Sessions {
			for _, r := range s.Records {
				if r.Action != harness.Read {
					got[r.Line] = append(got[r.Line], r)
				}
			}
		}
		checked := 0
		for line, ws := range want {
			if len(got[line]) != len(ws) {
				t.Errorf("line %d: %d records, want %d", line, len(got[line]), len(ws))
				continue
			}
			for i, w := range ws {
				r := got[line][i]
				exit := ""
				if r.Outcome.Exit != nil {
					exit = strconv.Itoa(*r.Outcome.Exit)
				}
				if r.Outcome.Status != w.status || exit != w.exit {
					t.Errorf("line %d %s: status %q exit %q, want %q %q", line, r.Value, r.Outcome.Status, exit, w.status, w.exit)
				}
				if w.hasNew && r.Span.New == "" {
					t.Errorf("line %d %s: no new text", line, r.Value)
				}
				if w.status != "" {
					checked++
				}
			}
		}
		t.Logf("%d outcomes checked", checked)
	})
}
