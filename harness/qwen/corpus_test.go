package qwen

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

const corpusDir = harnesstest.SharedCorpus + "qwen-code"

func corpusFiles(t testing.TB) []string { return harnesstest.CorpusFiles(t, corpusDir, "*.jsonl") }

// corpusCounts are, per corpus file (by the start of its name), the
// sessions, prompts, answers and file or command records that a second,
// independent reading counts with jq:
//
//	sessions: jq -r .sessionId F | sort -u | wc -l
//	prompts:  jq -c 'select(.type=="user" and (.subtype==null or .subtype=="mid_turn_user_message")
//	          and ([.message.parts[]?.text // empty] | join("") | test("\\S")))' F | wc -l
//	answers:  jq -c 'select(.type=="assistant" and ([.message.parts[]? | select(.thought != true)
//	          | .text // empty] | join("") | test("\\S")))' F | wc -l
//	records:  jq -c '.message.parts[]?.functionCall? // empty | select(.name |
//	          test("^(edit|replace|write_file|read_file|run_shell_command)$"))' F | wc -l
//
// (no corpus file has an @-command record, a subagent or a multi-path
// read_many_files call, so these are every record).
var corpusCounts = map[string]struct{ sessions, prompts, answers, records int }{
	"artas-linux__dotfiles__":                                     {1, 1, 1, 0},
	"haidonglethqb__CloudSchool__.qwen_projects_c--users-chuhai_": {1, 1, 3, 0},
	"haidonglethqb__CloudSchool__.qwen_projects_c--users-linhl-":  {1, 20, 32, 45},
	"navyapdh11__crm-portal__":                                    {1, 1, 0, 0},
}

// TestCorpusCounts checks each real chat against the counts of the second
// reading, and that every prompt's text, as the generic reading below
// joins it, is a user message of the session.
func TestCorpusCounts(t *testing.T) {
	checked := 0
	for _, path := range corpusFiles(t) {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			h, data := harnesstest.ParseChecked(t, Reader{}, path, 8192)
			if len(h.Warnings) > 0 || len(h.Refused) > 0 {
				t.Errorf("warnings %q, refused %q", h.Warnings, h.Refused)
			}
			var prompts, answers, records int
			typed := map[string]bool{}
			for _, s := range h.Sessions {
				for _, m := range s.Messages {
					if m.Role == harness.User {
						prompts++
						typed[m.Text] = true
					} else {
						answers++
					}
				}
				records += len(s.Records)
			}
			for prefix, want := range corpusCounts {
				if !strings.HasPrefix(name, prefix) {
					continue
				}
				checked++
				if len(h.Sessions) != want.sessions || prompts != want.prompts || answers != want.answers || records != want.records {
					t.Errorf("sessions %d, prompts %d, answers %d, records %d; want %+v", len(h.Sessions), prompts, answers, records, want)
				}
			}
			for _, p := range genericPrompts(data) {
				if !typed[p] {
					t.Errorf("prompt %.60q is no user message", p)
				}
			}
		})
	}
	if checked != len(corpusCounts) {
		t.Errorf("%d of the %d counted corpus files were found", checked, len(corpusCounts))
	}
}

// genericPrompts reads a chat with encoding/json into plain maps: each
// user record without a subtype, its text parts joined.
func genericPrompts(data []byte) []string {
	var out []string
	for _, l := range strings.Split(string(data), "\n") {
		var v map[string]any
		if json.Unmarshal([]byte(l), &v) != nil || v["type"] != "user" || v["subtype"] != nil {
			continue
		}
		msg, _ := v["message"].(map[string]any)
		parts, _ := msg["parts"].([]any)
		var text []string
		for _, p := range parts {
			pm, _ := p.(map[string]any)
			if s, _ := pm["text"].(string); strings.TrimSpace(s) != "" {
				text = append(text, strings.TrimSpace(s))
			}
		}
		if s := strings.Join(text, "\n"); s != "" {
			out = append(out, s)
		}
	}
	return out
}
