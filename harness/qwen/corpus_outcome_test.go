package qwen

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// exitLine is the "Exit Code: N" line of run_shell_command's answer,
// followed by its Signal, Background PIDs and PGID lines.
var exitLine = regexp.MustCompile(`\nExit Code: (-?\d+)((\n(Signal|Background PIDs|Process Group PGID): [^\n]*)*)$`)

// wantOutcome is what a raw chat says of one command or edit call.
type wantOutcome struct {
	status, exit string
	hasNew       bool
}

// rawOutcomes reads, with encoding/json, every shell and edit call of a
// chat by the line of its assistant record, and the status and exit code
// of the tool_result whose callId names it.
func rawOutcomes(data []byte) map[int][]*wantOutcome {
	byLine := map[int][]*wantOutcome{}
	byID := map[string]*wantOutcome{}
	for n, l := range strings.Split(string(data), "\n") {
		var r struct {
			Type       string `json:"type"`
			ForkedFrom any    `json:"forkedFrom"`
			Message    struct {
				Parts []struct {
					FunctionCall *struct {
						ID   string         `json:"id"`
						Name string         `json:"name"`
						Args map[string]any `json:"args"`
					} `json:"functionCall"`
					FunctionResponse *struct {
						Response map[string]any `json:"response"`
					} `json:"functionResponse"`
				} `json:"parts"`
			} `json:"message"`
			ToolCallResult struct {
				CallID string `json:"callId"`
				Status string `json:"status"`
			} `json:"toolCallResult"`
		}
		if json.Unmarshal([]byte(l), &r) != nil {
			continue
		}
		if w := byID[r.ToolCallResult.CallID]; r.Type == "tool_result" && w != nil {
			w.status = map[string]string{"success": "ok", "error": "failed", "cancelled": "failed"}[r.ToolCallResult.Status]
			for _, pt := range r.Message.Parts {
				if pt.FunctionResponse == nil {
					continue
				}
				out, _ := pt.FunctionResponse.Response["output"].(string)
				if m := exitLine.FindStringSubmatch(out); m != nil && w.exit == "-" {
					code, _ := strconv.Atoi(m[1])
					w.exit, w.status = m[1], string(harness.StatusOfExit(code))
				}
			}
			delete(byID, r.ToolCallResult.CallID)
		}
		if r.Type != "assistant" || r.ForkedFrom != nil {
			continue
		}
		for _, pt := range r.Message.Parts {
			c := pt.FunctionCall
			if c == nil {
				continue
			}
			text := func(k string) bool { s, _ := c.Args[k].(string); return s != "" }
			var w *wantOutcome
			switch c.Name {
			case "run_shell_command":
				w = &wantOutcome{exit: "-"}
			case "edit", "replace":
				w = &wantOutcome{exit: "", hasNew: text("new_string")}
			case "write_file":
				w = &wantOutcome{exit: "", hasNew: text("content")}
			default:
				continue
			}
			byLine[n+1], byID[c.ID] = append(byLine[n+1], w), w
		}
	}
	return byLine
}

// TestCorpusOutcomes checks every real chat: each shell and edit record
// carries exactly the status and exit code its tool_result gives, and
// each edit whose call had new text keeps it.
func TestCorpusOutcomes(t *testing.T) {
	checked := 0
	files := corpusFiles(t)
	defer func() {
		if checked < 10 {
			t.Errorf("checked %d outcomes: too few", checked)
		}
	}()
	harnesstest.EachFile(t, files, func(t *testing.T, path string, data []byte) {
		want := rawOutcomes(data)
		got := map[int][]harness.Record{}
		for _, s := range Parse(data, harness.ParseOptions{Path: path}).Sessions {
			for _, r := range s.Records {
				if r.Action != harness.Read && r.Action != harness.Added {
					got[r.Line] = append(got[r.Line], r)
				}
			}
		}
		for line, ws := range want {
			if len(got[line]) != len(ws) {
				t.Errorf("line %d: %d records, want %d", line, len(got[line]), len(ws))
				continue
			}
			for i, w := range ws {
				check(t, line, got[line][i], w, &checked)
			}
		}
	})
}

// check compares one record with what its raw call says.
func check(t *testing.T, line int, r harness.Record, w *wantOutcome, checked *int) {
	t.Helper()
	exit := ""
	if r.Outcome.Exit != nil {
		exit = strconv.Itoa(*r.Outcome.Exit)
	}
	if w.exit == "-" {
		w.exit = ""
	}
	if string(r.Outcome.Status) != w.status || exit != w.exit {
		t.Errorf("line %d %s: status %q exit %q, want %q %q", line, r.Value, r.Outcome.Status, exit, w.status, w.exit)
	}
	if w.hasNew && r.Span.New == "" {
		t.Errorf("line %d %s: no new text", line, r.Value)
	}
	if w.status != "" {
		*checked++
	}
}
