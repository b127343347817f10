package cline

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// rawResults reads, apart from the reader, the is_error of each
// tool_result that answers a command or edit call, in call order, and the
// new text of every edit call: write_to_file's content, the editor's
// new_text, each REPLACE of replace_in_file's diff.
func rawResults(t *testing.T, data []byte) (flags []string, news []string) {
	var msgs []struct {
		Content json.RawMessage `json:"content"`
	}
	if json.Unmarshal(data, &msgs) != nil {
		var sdk struct {
			Messages json.RawMessage `json:"messages"`
		}
		if err := json.Unmarshal(data, &sdk); err != nil {
			t.Fatal(err)
		}
		json.Unmarshal(sdk.Messages, &msgs)
	}
	made := map[string]bool{}
	var order []string
	flag := map[string]string{}
	for _, m := range msgs {
		var blocks []struct {
			Type      string         `json:"type"`
			ID        string         `json:"id"`
			Name      string         `json:"name"`
			Input     map[string]any `json:"input"`
			ToolUseID string         `json:"tool_use_id"`
			IsError   *bool          `json:"is_error"`
		}
		json.Unmarshal(m.Content, &blocks)
		for _, b := range blocks {
			switch b.Type {
			case "tool_use":
				switch toolKind(b.Name) {
				case toolCommand, toolEdit:
					made[b.ID] = true
					order = append(order, b.ID)
				}
				if toolKind(b.Name) != toolEdit {
					continue
				}
				for _, k := range []string{"content", "new_text"} {
					if s, _ := b.Input[k].(string); s != "" {
						news = append(news, s)
					}
				}
				diff, _ := b.Input["diff"].(string)
				for _, part := range strings.Split(diff, "\n=======\n")[1:] {
					if r, _, _ := strings.Cut(part, "\n+++++++ REPLACE"); r != "" {
						news = append(news, r)
					}
				}
			case "tool_result":
				if made[b.ToolUseID] && b.IsError != nil {
					flag[b.ToolUseID] = map[bool]string{true: "failed", false: "ok"}[*b.IsError]
				}
			}
		}
	}
	for _, id := range order {
		flags = append(flags, flag[id])
	}
	return flags, news
}

// TestCorpusOutcomes checks every real history: each command or edit
// call's records carry exactly the is_error its tool_result wrote (none
// where it wrote none), and every edit's new text is in a record's span.
func TestCorpusOutcomes(t *testing.T) {
	files := append(harnesstest.CorpusFiles(t, corpusDir, "*.messages.json"), harnesstest.CorpusFiles(t, corpusDir, "*api_conversation_history.json")...)
	harnesstest.EachFile(t, files, func(t *testing.T, path string, data []byte) {
		h := Parse(data, harness.ParseOptions{Path: filepath.Join("/nonexistent", filepath.Base(path))})
		want, news := rawResults(t, data)
		// A call's records are together, one per span of its file: its
		// status is read once per run of records of one line and value.
		var got []string
		var spans strings.Builder
		for _, s := range h.Sessions {
			var last harness.Record
			for _, r := range s.Records {
				spans.WriteString(r.Span.New + "\x00")
				if r.Action == harness.Added || r.Action == harness.Read {
					continue
				}
				if (r.Line != last.Line || r.Value != last.Value || r.Kind == harness.CommandRecord) && r.Outcome.Status != "" {
					got = append(got, string(r.Outcome.Status))
				}
				last = r
			}
		}
		var flagged []string
		for _, f := range want {
			if f != "" {
				flagged = append(flagged, f)
			}
		}
		if strings.Join(got, ",") != strings.Join(flagged, ",") {
			t.Errorf("statuses\n got %v\nwant %v", got, flagged)
		}
		for _, n := range news {
			if !strings.Contains(spans.String(), n) {
				t.Errorf("edit text %.60q is in no span", n)
			}
		}
	})
}
