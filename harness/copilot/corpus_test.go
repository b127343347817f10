package copilot

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

const corpusDir = harnesstest.SharedCorpus + "copilot-cli"

// corpusFiles returns the corpus's events files.
func corpusFiles(t testing.TB) []string {
	return harnesstest.CorpusFiles(t, corpusDir, "*events.jsonl*")
}

// corpusCounts are what each corpus file holds, established by a second,
// independent reading: a Python script that decodes every line with the
// json module and counts, per file, the sessions with anything in them
// (the file's own and one per parentToolCallId), the file's own
// user.message events with non-blank content (each sub-agent adds the
// prompt of its task call), its distinct non-blank assistant texts
// (assistant.message content and session.task_complete summaries, a
// repeat of the text just said not counted), and its distinct records
// per turn: bash and powershell commands, view paths other than the
// project itself whose tool.execution_complete did not report success
// false nor a toolTelemetry.properties.viewType of "directory", and edit
// and create paths, one a turn for each distinct old_str/new_str or
// file_text of a call that succeeded, leaving out every call whose
// permission.completed result kind starts with "denied".
var corpusCounts = map[string]struct {
	sessions, prompts, answers, records int
	agentPrompts                        int
}{
	"3cc3555e": {1, 2, 3, 29, 0},
	"9a493a94": {1, 1, 1, 0, 0},
	"b87feda8": {1, 1, 1, 19, 0},
	"07c40cd0": {1, 7, 24, 61, 0},
	"8baa78ec": {2, 5, 19, 26, 1},
}

// TestCorpus checks each real events file against those counts, and that
// every typed prompt is in a user message while no transformedContent (the
// prompt as the model got it) is.
func TestCorpus(t *testing.T) {
	for _, path := range corpusFiles(t) {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			var want struct {
				sessions, prompts, answers, records int
				agentPrompts                        int
			}
			found := false
			for key, c := range corpusCounts {
				if strings.Contains(name, "_"+key) {
					want, found = c, true
				}
			}
			if !found {
				t.Fatalf("no counts for %s: count it and add it to corpusCounts", name)
			}
			h, data := harnesstest.ParseChecked(t, Reader{}, path, 0)
			if len(h.Warnings) > 0 || len(h.Refused) > 0 {
				t.Errorf("warnings %q refused %q on a real file", h.Warnings, h.Refused)
			}
			if len(h.Sessions) != want.sessions {
				t.Fatalf("%d sessions, want %d", len(h.Sessions), want.sessions)
			}
			s := h.Sessions[0]
			if s.Subagent || s.End != int64(len(data)) || s.Project == "" || s.Started.IsZero() {
				t.Errorf("own session %s: subagent %v, ends at %d of %d, project %q, started %v", s.ID, s.Subagent, s.End, len(data), s.Project, s.Started)
			}
			count := func(s harness.Session, role harness.Role) int {
				n := 0
				for _, m := range s.Messages {
					if m.Role == role {
						n++
					}
				}
				return n
			}
			if got := count(s, harness.User); got != want.prompts {
				t.Errorf("%d prompts, want %d", got, want.prompts)
			}
			if got := count(s, harness.Assistant); got != want.answers {
				t.Errorf("%d answers, want %d", got, want.answers)
			}
			if len(s.Records) != want.records {
				t.Errorf("%d records, want %d", len(s.Records), want.records)
			}
			agentPrompts := 0
			for _, sub := range h.Sessions[1:] {
				if !sub.Subagent || sub.Parent != s.ID || !strings.HasPrefix(sub.ID, s.ID+agentInfix) {
					t.Errorf("sub-agent %s: subagent %v parent %s", sub.ID, sub.Subagent, sub.Parent)
				}
				agentPrompts += count(sub, harness.User)
			}
			if agentPrompts != want.agentPrompts {
				t.Errorf("%d sub-agent prompts, want %d", agentPrompts, want.agentPrompts)
			}
			for _, m := range s.Messages {
				if strings.Contains(m.Text, "<current_datetime>") {
					t.Errorf("message at line %d holds the prompt as the model got it", m.Line)
				}
			}
		})
	}
}

// TestLayouts: an events file written with other spacing or its keys in
// another order (data before type) is the same file.
func TestLayouts(t *testing.T) {
	corpus := filepath.Join(corpusDir, "*events.jsonl*")
	harnesstest.CheckLayouts(t, ".jsonl", corpus, func(name string, head []byte) error {
		return Reader{}.Sniff(fixturePath(name), head)
	}, parseFixture)
}

// TestCorpusOutcomes checks the outcomes and spans of every real events
// file against its lines, decoded with encoding/json: each bash or
// powershell call whose completion ends "<exited with exit code N>" in
// the turn that made it has a record with exactly exit N (one completed
// after the next prompt, none), no command record has an exit its lines
// lack, a file edit that failed has a failed record, and one that
// succeeded with new text has a record carrying it.
func TestCorpusOutcomes(t *testing.T) {
	var exits, spans, failures int
	exitRE := regexp.MustCompile(`<exited with exit code (-?\d+)>\s*$`)
	for _, path := range corpusFiles(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			h, data := harnesstest.ParseChecked(t, Reader{}, path, 0)
			s := h.Sessions[0]
			type start struct {
				name string
				args map[string]any
				turn int
			}
			starts := map[string]start{}
			want := map[string]map[int]bool{} // command → exits, of those in their turn
			turn := -1
			for _, line := range bytes.Split(bytes.TrimPrefix(data, utf8BOM), []byte("\n")) {
				var e struct {
					Type string `json:"type"`
					Data struct {
						Content    string         `json:"content"`
						ToolCallID string         `json:"toolCallId"`
						ToolName   string         `json:"toolName"`
						Parent     string         `json:"parentToolCallId"`
						Arguments  map[string]any `json:"arguments"`
						Success    *bool          `json:"success"`
						Result     *struct {
							Content string `json:"content"`
						} `json:"result"`
					} `json:"data"`
				}
				if json.Unmarshal(line, &e) != nil || e.Data.Parent != "" {
					continue
				}
				d := e.Data
				switch e.Type {
				case "user.message":
					if strings.TrimSpace(d.Content) != "" {
						turn++
					}
				case "tool.execution_start":
					starts[d.ToolCallID] = start{d.ToolName, d.Arguments, turn}
				case "tool.execution_complete":
					st, ok := starts[d.ToolCallID]
					if !ok || d.Success == nil {
						continue
					}
					switch st.name {
					case "bash", "powershell":
						cmd := strings.TrimSpace(st.args["command"].(string))
						var m []string
						if d.Result != nil {
							m = exitRE.FindStringSubmatch(d.Result.Content)
						}
						if m == nil || st.turn != turn {
							continue
						}
						exits++
						code, _ := strconv.Atoi(m[1])
						if want[cmd] == nil {
							want[cmd] = map[int]bool{}
						}
						want[cmd][code] = true
						if !hasRecordWith(s, func(r harness.Record) bool {
							return r.Kind == harness.CommandRecord && r.Value == cmd && r.Outcome.Exit != nil && *r.Outcome.Exit == code
						}) {
							t.Errorf("%s %.60q exited %d; no record says so", st.name, cmd, code)
						}
					case "edit", "create":
						file := relative(s.Project, st.args["path"].(string))
						if !*d.Success {
							failures++
							if !hasRecordWith(s, func(r harness.Record) bool { return r.Value == file && r.Outcome.Status == harness.Failed }) {
								t.Errorf("failed %s of %s has no failed record", st.name, file)
							}
							continue
						}
						text, _ := st.args["new_str"].(string)
						if st.name == "create" {
							text, _ = st.args["file_text"].(string)
						}
						if text == "" {
							continue
						}
						spans++
						if !hasRecordWith(s, func(r harness.Record) bool {
							return r.Value == file && r.Span.New != "" && r.Span.Whole == (st.name == "create") && r.Outcome.Status == harness.Succeeded
						}) {
							t.Errorf("%s of %s has no record with its new text", st.name, file)
						}
					}
				}
			}
			for _, r := range s.Records {
				if r.Outcome.Exit != nil && !want[r.Value][*r.Outcome.Exit] {
					t.Errorf("command %.60q has exit %d, which its lines do not give", r.Value, *r.Outcome.Exit)
				}
			}
		})
	}
	if exits < 50 || spans < 5 || failures < 1 {
		t.Errorf("checked %d exits, %d spans, %d failed edits: too few to mean anything", exits, spans, failures)
	}
}

func hasRecordWith(s harness.Session, match func(harness.Record) bool) bool {
	for _, r := range s.Records {
		if match(r) {
			return true
		}
	}
	return false
}
