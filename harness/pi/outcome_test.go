package pi

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// rawOutcome is what a second, plain reading of a transcript says of a
// command's result: isError, and the exit status pi's bash tool writes at
// the end of a failed command's text.
type rawOutcome struct {
	failed bool
	exit   string
}

var exitLine = regexp.MustCompile(`Command exited with code (\d+)\s*$`)

// rawOutcomes reads, apart from the reader, each bash or exec command's
// outcome (the last in file order for a command run more than once) and
// the new text of every edit and write call.
func rawOutcomes(data []byte) (map[string]rawOutcome, []string) {
	type call struct{ name, command string }
	calls := map[string]call{}
	out := map[string]rawOutcome{}
	var news []string
	for _, l := range strings.Split(string(data), "\n") {
		var v struct {
			Message struct {
				Role       string          `json:"role"`
				Content    json.RawMessage `json:"content"`
				ToolCallID string          `json:"toolCallId"`
				IsError    bool            `json:"isError"`
			} `json:"message"`
		}
		if json.Unmarshal([]byte(l), &v) != nil {
			continue
		}
		m := v.Message
		var blocks []struct {
			Type      string `json:"type"`
			Text      string `json:"text"`
			ID        string `json:"id"`
			Name      string `json:"name"`
			Arguments struct {
				Command string `json:"command"`
				NewText string `json:"newText"`
				Content string `json:"content"`
				Edits   []struct {
					NewText string `json:"newText"`
				} `json:"edits"`
			} `json:"arguments"`
		}
		json.Unmarshal(m.Content, &blocks)
		switch m.Role {
		case "assistant":
			for _, b := range blocks {
				if b.Type != "toolCall" {
					continue
				}
				calls[b.ID] = call{b.Name, strings.TrimSpace(b.Arguments.Command)}
				for _, s := range append([]string{b.Arguments.NewText, b.Arguments.Content}, editNews(b.Arguments.Edits)...) {
					if s != "" && (b.Name == "edit" || b.Name == "write") {
						news = append(news, s)
					}
				}
			}
		case "toolResult":
			c := calls[m.ToolCallID]
			if (c.name != "bash" && c.name != "exec") || c.command == "" {
				continue
			}
			o := rawOutcome{failed: m.IsError}
			var text strings.Builder
			for _, b := range blocks {
				text.WriteString(b.Text)
			}
			if e := exitLine.FindStringSubmatch(text.String()); e != nil && m.IsError {
				o.exit = e[1]
			}
			out[c.command] = o
		}
	}
	return out, news
}

func editNews(edits []struct {
	NewText string `json:"newText"`
}) []string {
	var s []string
	for _, e := range edits {
		s = append(s, e.NewText)
	}
	return s
}

// TestCorpusOutcomes checks every real transcript: each command the model
// ran carries exactly the error flag and exit status its toolResult
// wrote, and every edit's new text is in a record's span.
func TestCorpusOutcomes(t *testing.T) {
	files := append(harnesstest.CorpusFiles(t, corpusRoot+"pi", "*.jsonl"), harnesstest.CorpusFiles(t, corpusRoot+"openclaw", "*.jsonl")...)
	harnesstest.EachFile(t, files, func(t *testing.T, path string, data []byte) {
		h := Parse(data, Options{Path: path})
		want, news := rawOutcomes(data)
		seen := 0
		var spans strings.Builder
		for _, s := range h.Sessions {
			for _, r := range s.Records {
				spans.WriteString(r.Span.New + "\x00")
				w, ok := want[r.Value]
				if r.Kind != harness.CommandRecord || !ok {
					continue
				}
				seen++
				exit := ""
				if r.Outcome.Exit != nil {
					exit = itoa(*r.Outcome.Exit)
				}
				if (r.Outcome.Status == harness.Failed) != w.failed || r.Outcome.Status == "" || exit != w.exit {
					t.Errorf("%.50q: status %q exit %q, want failed %v exit %q", r.Value, r.Outcome.Status, exit, w.failed, w.exit)
				}
			}
		}
		if seen != len(want) {
			t.Errorf("%d command records with a result, want %d", seen, len(want))
		}
		for _, n := range news {
			if !strings.Contains(spans.String(), n) {
				t.Errorf("edit text %.60q is in no span", n)
			}
		}
	})
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }
