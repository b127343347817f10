package codex

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// exitPattern finds the exit status in the two text shapes of a result.
var exitPattern = regexp.MustCompile(`^(?:Exit code: |(?s:.*?)\nProcess exited with code )(-?\d+)\n`)

// rawExits reads, apart from the reader, the exit status of each shell
// call of a rollout in call order ("" where its result has none), and the
// '+' lines of every apply_patch call.
func rawExits(data []byte) (exits []string, added []string) {
	byCall := map[string]int{}
	for _, l := range strings.Split(string(data), "\n") {
		var v map[string]any
		if json.Unmarshal([]byte(l), &v) != nil {
			continue
		}
		p, ok := v["payload"].(map[string]any)
		if !ok {
			p = v
		}
		id, _ := p["call_id"].(string)
		args, _ := p["arguments"].(string)
		input, _ := p["input"].(string)
		switch {
		case p["name"] == "apply_patch" || strings.Contains(args, "*** Begin Patch"):
			for _, line := range strings.Split(input+args, "\n") {
				if t, ok := strings.CutPrefix(line, "+"); ok && strings.TrimSpace(t) != "" {
					added = append(added, t)
				}
			}
		case p["type"] == "local_shell_call" || p["name"] == "shell" || p["name"] == "shell_command" || p["name"] == "exec_command":
			if cmdArray(args) {
				continue // arguments Codex itself could not read: no record
			}
			byCall[id] = len(exits)
			exits = append(exits, "")
		case p["type"] == "function_call_output" || p["type"] == "custom_tool_call_output":
			i, ok := byCall[id]
			out, _ := p["output"].(string)
			if !ok {
				continue
			}
			var j struct {
				Metadata struct {
					ExitCode *int `json:"exit_code"`
				} `json:"metadata"`
			}
			if json.Unmarshal([]byte(out), &j) == nil && j.Metadata.ExitCode != nil {
				exits[i] = strconv.Itoa(*j.Metadata.ExitCode)
			} else if m := exitPattern.FindStringSubmatch(out); m != nil {
				exits[i] = m[1]
			}
		}
	}
	return exits, added
}

// TestCorpusOutcomes checks every real rollout: each shell call's command
// record carries exactly the exit status its result wrote, with the
// status that goes with it, and every line a patch adds is in the new text
// of one of the session's edit spans.
func TestCorpusOutcomes(t *testing.T) {
	harnesstest.EachFile(t, corpusFiles(t), func(t *testing.T, path string, data []byte) {
		h := Parse(data, harness.ParseOptions{Path: path})
		want, added := rawExits(data)
		var got []string
		var news strings.Builder
		for _, s := range h.Sessions {
			for _, r := range s.Records {
				if r.Kind == harness.FileRecord {
					news.WriteString(r.Span.New + "\n")
					continue
				}
				e := ""
				if r.Outcome.Exit != nil {
					e = strconv.Itoa(*r.Outcome.Exit)
					if r.Outcome.Status != harness.StatusOfExit(*r.Outcome.Exit) {
						t.Errorf("%.40q: exit %s with status %q", r.Value, e, r.Outcome.Status)
					}
				}
				got = append(got, e)
			}
		}
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("exit statuses\n got %v\nwant %v", got, want)
		}
		for _, a := range added {
			if !strings.Contains(news.String(), a) {
				t.Errorf("added line %.60q is in no edit span", a)
			}
		}
	})
}

// cmdArray reports arguments whose cmd is not a string (corpus: JaydenXsoe
// 2025-08-24), which Codex answered "failed to parse function arguments".
func cmdArray(args string) bool {
	var a map[string]any
	json.Unmarshal([]byte(args), &a)
	_, isString := a["cmd"].(string)
	return a["cmd"] != nil && !isString
}
