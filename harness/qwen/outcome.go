package qwen

import (
	"strconv"
	"strings"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/internal/jsonscan"
)

// call is a command or edit call's records, n of them from at, waiting
// for its tool_result.
type call struct {
	st    *state
	at, n int
}

// awaited reports whether a tool_result answers a pending call, reading
// only the ids after its callId keys: most results are of reads and
// searches, and are left undecoded.
func (p *parser) awaited(raw []byte) bool {
	if len(p.pending) == 0 {
		return false
	}
	return harness.AnyValue(raw, "callId", func(id string) bool {
		_, ok := p.pending[id]
		return ok
	})
}

// result sets the outcome of the pending call a tool_result ends
// (recordToolResult in chatRecordingService.ts): the status the
// scheduler gave it in toolCallResult (success, error, cancelled), and
// for a command the exit code and output of its functionResponse's
// response.output, the text the model was given. The record is walked,
// not decoded: an edit's result holds the edited file, and its
// resultDisplay a diff, none of which is read.
func (p *parser) result(raw []byte) {
	var id, status string
	var output []byte
	sc := jsonscan.New(raw)
	sc.Object(func(key []byte) bool {
		switch string(key) {
		case "toolCallResult":
			sc.Object(func(key []byte) bool {
				switch string(key) {
				case "callId":
					id = sc.String()
				case "status":
					status = sc.String()
				default:
					return false
				}
				return true
			})
		case "message":
			sc.Object(func(key []byte) bool {
				if string(key) != "parts" || sc.Kind() != '[' {
					return false
				}
				sc.Array(func() {
					sc.Object(func(key []byte) bool {
						if string(key) != "functionResponse" {
							return false
						}
						sc.Object(func(key []byte) bool {
							if string(key) != "response" {
								return false
							}
							sc.Object(func(key []byte) bool {
								if string(key) != "output" || output != nil {
									return false
								}
								output = sc.RawString()
								return true
							})
							return true
						})
						return true
					})
				})
				return true
			})
		default:
			return false
		}
		return true
	})
	c, ok := p.pending[id]
	if !ok || sc.Err() != nil {
		return
	}
	delete(p.pending, id)
	var o harness.Outcome
	switch status {
	case "success":
		o.Status = harness.Succeeded
	case "error", "cancelled":
		o.Status = harness.Failed
	}
	recs := c.st.sess.Records[c.at : c.at+c.n]
	if recs[0].Kind == harness.CommandRecord && output != nil {
		shellOutput(&o, jsonscan.Unescape(output))
	}
	for i := range recs {
		recs[i].Outcome = o
	}
}

// shellOutput reads run_shell_command's answer (packages/core/src/tools/
// shell.ts): "Command: …\nDirectory: …\nOutput: <output or (empty)>\n
// Error: <error or (none)>\nExit Code: <code or (none)>\nSignal: …", then
// "Background PIDs: …" and "Process Group PGID: …" in releases that
// write them. The code is written for every exit, 0 too. A cancelled
// command's answer opens "Command was cancelled…" with the output after
// its first line.
func shellOutput(o *harness.Outcome, text string) {
	body := text
	for {
		i := strings.LastIndexByte(body, '\n')
		last := body[i+1:]
		switch {
		case strings.HasPrefix(last, "Process Group PGID: "), strings.HasPrefix(last, "Background PIDs: "),
			strings.HasPrefix(last, "Signal: "):
		case strings.HasPrefix(last, "Exit Code: "):
			if code, err := strconv.Atoi(strings.TrimPrefix(last, "Exit Code: ")); err == nil && o.Exit == nil {
				o.Exit, o.Status = harness.ExitStatus(code), harness.StatusOfExit(code)
			}
		default:
			i = -2
		}
		if i < 0 {
			break
		}
		body = body[:i]
	}
	out := ""
	switch {
	case strings.HasPrefix(body, "Command: "):
		// The output runs from its line to the Error line the CLI adds
		// after it.
		if _, after, ok := strings.Cut(body, "\nOutput: "); ok {
			if i := strings.LastIndex(after, "\nError: "); i >= 0 {
				after = after[:i]
			}
			out = after
		}
	case strings.HasPrefix(body, "Output: "):
		out = strings.TrimPrefix(body, "Output: ")
	case strings.HasPrefix(body, "Command was cancelled"), strings.HasPrefix(body, "Command execution timed out"):
		_, out, _ = strings.Cut(body, "\n")
	}
	if out != "(empty)" {
		o.Output = strings.Clone(harness.ClipOutput(out))
	}
}

// handed forgets the pending calls among a session's first n records,
// which a piece has handed over: their results, if they come, are left
// unknown. The others move down with the records kept.
func (p *parser) handed(st *state, n int) {
	if n == 0 {
		return
	}
	for id, c := range p.pending {
		if c.st != st {
			continue
		}
		if c.at < n {
			delete(p.pending, id)
			continue
		}
		c.at -= n
		p.pending[id] = c
	}
}
