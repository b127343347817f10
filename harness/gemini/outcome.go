package gemini

import (
	"strconv"
	"strings"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/internal/jsonscan"
)

// settle reads what a decoded call says of how it ended while its line is
// held: a command's status, exit code and clipped output, an edit's
// status and span. The raw output and the edit's whole text are let go.
func (c *toolCall) settle() {
	switch c.Status {
	case "success":
		c.Outcome.Status = harness.Succeeded
	case "error", "cancelled":
		// A cancelled call did not run to its end (coreToolScheduler's
		// terminal states are success, error and cancelled).
		c.Outcome.Status = harness.Failed
	}
	switch {
	case shellTools[c.Name]:
		if c.output != nil {
			c.shellOutput(jsonscan.Unescape(c.output))
		}
	case editTools[c.Name]:
		if c.Name == "write_file" {
			if c.Args.HasContent {
				c.Span.New, c.Span.Clipped = harness.ClipSpan(c.Args.Content)
				c.Span.Whole = true
			}
		} else {
			var cutOld, cutNew bool
			c.Span.Old, cutOld = harness.ClipSpan(c.Args.OldString)
			c.Span.New, cutNew = harness.ClipSpan(c.Args.NewString)
			c.Span.Clipped = cutOld || cutNew
		}
	}
	c.output = nil
	c.Args.OldString, c.Args.NewString, c.Args.Content = "", "", ""
}

// shellOutput reads run_shell_command's answer to the model (shell.ts
// @002a57ef): "Output: <output>", then, each where it applies, lines
// "Error: …", "Exit Code: N" (only when not 0), "Signal: …", "Background
// PIDs: …" and "Process Group PGID: N". Releases before 0.2 wrote
// "Command: …\nDirectory: …\nStdout: …" and "Exit Code: N" always, 0 too.
// A cancelled call's answer opens "Command was cancelled by user…" with
// the output after the first line.
func (c *toolCall) shellOutput(text string) {
	body := text
	for {
		i := strings.LastIndexByte(body, '\n')
		last := body[i+1:]
		switch {
		case strings.HasPrefix(last, "Process Group PGID: "), strings.HasPrefix(last, "Background PIDs: "),
			strings.HasPrefix(last, "Signal: "), strings.HasPrefix(last, "Error: "):
		case strings.HasPrefix(last, "Exit Code: "):
			if code, err := strconv.Atoi(strings.TrimPrefix(last, "Exit Code: ")); err == nil && c.Outcome.Exit == nil {
				c.Outcome.Exit, c.Outcome.Status = harness.ExitStatus(code), harness.StatusOfExit(code)
			}
		default:
			i = -2
		}
		if i < 0 {
			break
		}
		body = body[:i]
	}
	switch {
	case strings.HasPrefix(body, "Output: "):
		if out := strings.TrimPrefix(body, "Output: "); out != "(empty)" {
			c.Outcome.Output = harness.ClipOutput(out)
		}
	case strings.HasPrefix(body, "Command was cancelled") || strings.HasPrefix(body, "Command was automatically cancelled"):
		if _, out, ok := strings.Cut(body, "\n"); ok {
			c.Outcome.Output = harness.ClipOutput(out)
		}
	}
	c.Outcome.Output = strings.Clone(c.Outcome.Output)
}
