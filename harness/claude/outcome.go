package claude

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/deja-dev/deja/harness"
	json "github.com/deja-dev/deja/internal/jsonlimit"
)

// call is a command or edit record, or a MultiEdit's n records from at,
// waiting for its tool_result.
type call struct {
	st    *state
	at, n int
}

// resultLine is the part of a tool's answer an outcome is read from: each
// tool_result block's id, error flag and content (FORMATS.md §1.4). The
// line's toolUseResult object is not decoded: it holds a read file or an
// edit's whole original file, and says no more than the block does.
type resultLine struct {
	Message struct {
		Content []resultBlock `json:"content"`
	} `json:"message"`
}

type resultBlock struct {
	Type      string          `json:"type"`
	ToolUseID string          `json:"tool_use_id"`
	IsError   bool            `json:"is_error"`
	Content   json.RawMessage `json:"content"`
}

// awaited reports whether a tool's answer names a pending call, reading
// only the ids after its tool_use_id keys: most answers are to reads and
// searches, and are left undecoded.
func (p *parser) awaited(raw []byte) bool {
	if len(p.pending) == 0 {
		return false
	}
	return harness.AnyValue(raw, "tool_use_id", func(id string) bool {
		_, ok := p.pending[id]
		return ok
	})
}

// results sets the outcome of each pending call a tool's answer ends. The
// API's is_error defaults to false: a result without it succeeded. A Bash
// call that exits non-zero is an error whose text opens "Exit code N"
// (corpus: oneryalcin/fasthooks main_transcript); one that exits 0 says no
// code, and other errors (a refused or interrupted call) neither.
func (p *parser) results(raw []byte) {
	var rl resultLine
	if json.Unmarshal(raw, &rl) != nil {
		return
	}
	for _, b := range rl.Message.Content {
		c, ok := p.pending[b.ToolUseID]
		if b.Type != "tool_result" || !ok {
			continue
		}
		delete(p.pending, b.ToolUseID)
		recs := c.st.sess.Records[c.at : c.at+c.n]
		var o harness.Outcome
		o.Status = harness.Succeeded
		if b.IsError {
			o.Status = harness.Failed
		}
		if recs[0].Kind == harness.CommandRecord {
			text := resultText(b.Content)
			code, rest, coded := exitCode(text)
			switch {
			case coded && b.IsError:
				o.Exit, o.Status = harness.ExitStatus(code), harness.StatusOfExit(code)
				o.Output = strings.Clone(harness.ClipOutput(rest))
			case !b.IsError:
				o.Output = strings.Clone(harness.ClipOutput(text))
			}
		}
		for i := range recs {
			recs[i].Outcome = o
		}
	}
}

// resultText is a tool_result's content: a string, or its text blocks
// joined.
func resultText(content json.RawMessage) string {
	content = bytes.TrimSpace(content)
	if len(content) > 0 && content[0] == '"' {
		var s string
		if json.Unmarshal(content, &s) != nil {
			return ""
		}
		return s
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(content, &blocks) != nil {
		return ""
	}
	var parts []string
	for _, b := range blocks {
		if b.Type == "text" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// exitCode reads the "Exit code N" line a failed Bash result opens with,
// and returns the output after it.
func exitCode(text string) (int, string, bool) {
	rest, ok := strings.CutPrefix(text, "Exit code ")
	if !ok {
		return 0, "", false
	}
	num, out, _ := strings.Cut(rest, "\n")
	code, err := strconv.Atoi(strings.TrimSpace(num))
	if err != nil {
		return 0, "", false
	}
	return code, out, true
}

// handed forgets the pending calls among a session's first n records,
// which a piece has handed over: their answers, if they come, are left
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
