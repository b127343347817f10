package gemini

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/deja-dev/deja/harness"
)

// exitLine is the "Exit Code: N" line run_shell_command's answer ends
// with, before its Signal, Background PIDs and PGID lines.
var exitLine = regexp.MustCompile(`\nExit Code: (-?\d+)((\n(Signal|Background PIDs|Process Group PGID): [^\n]*)*)$`)

// TestCorpusOutcomes checks every real recording against its raw calls,
// decoded with encoding/json: each command record ends as a call of that
// command did (the exit code its answer gives, else the call's status),
// every such ending has its record, and every successful edit or write
// with new text keeps it.
func TestCorpusOutcomes(t *testing.T) {
	exits := 0
	chats := corpusChats(t)
	defer func() {
		if exits < 3 {
			t.Errorf("checked %d exit codes: too few", exits)
		}
	}()
	for _, path := range chats {
		t.Run(filepath.Base(path), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			recs, _ := corpusRecords(t, data, strings.HasSuffix(path, ".json"))
			want := map[string]bool{}
			news := map[string]bool{}
			for _, r := range recs {
				for _, c := range r.ToolCalls {
					switch c.Name {
					case "run_shell_command":
						cmd, _ := c.Args["command"].(string)
						status := map[string]string{"success": "ok", "error": "failed", "cancelled": "failed"}[c.Status]
						exit := ""
						for _, res := range c.Result {
							out, _ := res.FunctionResponse.Response["output"].(string)
							if m := exitLine.FindStringSubmatch(out); m != nil {
								exit = m[1]
								code, _ := strconv.Atoi(exit)
								status = string(harness.StatusOfExit(code))
								exits++
							}
						}
						want[strings.TrimSpace(cmd)+"\x00"+status+"\x00"+exit] = true
					case "replace", "edit", "write_file":
						key := "new_string"
						if c.Name == "write_file" {
							key = "content"
						}
						if s, _ := c.Args[key].(string); s != "" && c.Status == "success" {
							clipped, _ := harness.ClipSpan(s)
							news[clipped] = true
						}
					}
				}
			}
			h := Parse(data, Options{Path: path})
			got := map[string]bool{}
			for _, s := range h.Sessions {
				for _, r := range s.Records {
					if r.Kind == harness.FileRecord {
						delete(news, r.Span.New)
						continue
					}
					exit := ""
					if r.Outcome.Exit != nil {
						exit = strconv.Itoa(*r.Outcome.Exit)
					}
					k := r.Value + "\x00" + string(r.Outcome.Status) + "\x00" + exit
					got[k] = true
					if !want[k] {
						t.Errorf("command %q ended %q exit %q: no call of it did", r.Value, r.Outcome.Status, exit)
					}
				}
			}
			for k := range want {
				if !got[k] {
					t.Errorf("no record of the call ending %q", k)
				}
			}
			for n := range news {
				t.Errorf("an edit's new text %.60q is in no record", n)
			}
		})
	}
}
