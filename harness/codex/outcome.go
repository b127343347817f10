package codex

import (
	"strconv"
	"strings"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/internal/jsonscan"
)

// Codex writes a tool call's result as a later response item,
// function_call_output or custom_tool_call_output, joined to its call by
// call_id; the rollout keeps only its text, not the success flag the
// model was given. The text of a command that ran is in one of three
// shapes, by version (codex-rs core/src/tools: format_exec_output and
// format_exec_output_str, unified_exec):
//
//	{"output":"…","metadata":{"exit_code":1,"duration_seconds":0.3}}
//	Exit code: 1\nWall time: 0 seconds\nOutput:\n…
//	Chunk ID: …\nWall time: …\nProcess exited with code 1\n…Output:\n…
//
// Any other text is Codex's own refusal, written where the call never ran
// or the patch did not apply (corpus: JaydenXsoe 2025-08-24, 0h-n0
// 2025-12-25); only the prefixes below, each an error path of codex-rs,
// are read as failures.
var failurePrefixes = []string{
	"failed in sandbox", "execution error:", "apply_patch verification failed",
	"error: ", "failed to parse function arguments", "unsupported call",
}

// resultFields are what a result line says, as written (escapes left in):
// a response item's call_id and output, or an end event's call_id,
// exit_code, aggregated_output and success.
type resultFields struct {
	callID, output   []byte
	exit             int64
	hasExit, success bool
	hasSuccess       bool
}

// readResult walks a result line, wrapped or a flat file's bare item,
// without decoding it: results are a rollout's largest lines and most
// belong to calls deja keeps no record of. Output that is not a string
// (newer image results) is left nil.
func readResult(raw []byte) resultFields {
	var f resultFields
	var s jsonscan.Scanner
	s.Reset(raw)
	var field func(key []byte) bool
	field = func(key []byte) bool {
		switch string(key) {
		case "payload":
			s.Object(field)
		case "call_id":
			f.callID = s.RawString()
		case "output", "aggregated_output":
			f.output = s.RawString()
		case "exit_code":
			if s.Kind() == 'n' {
				s.Skip()
				break
			}
			f.exit, f.hasExit = s.Int(), true
		case "success":
			f.success, f.hasSuccess = s.Bool(), true
		default:
			s.Skip()
		}
		return true
	}
	s.Object(field)
	return f
}

// outcomeOf reads how a call ended from its result's text.
func outcomeOf(text string) harness.Outcome {
	if strings.HasPrefix(text, "{") {
		return jsonOutcome(text)
	}
	if rest, ok := strings.CutPrefix(text, "Exit code: "); ok {
		return textOutcome(rest, text)
	}
	if _, rest, ok := strings.Cut(head(text), "\nProcess exited with code "); ok {
		return textOutcome(rest, text)
	}
	if strings.HasPrefix(text, "Success. Updated the following files:") {
		// apply_patch's own report, bare in some custom tool results.
		return harness.Outcome{Status: harness.Succeeded}
	}
	for _, p := range failurePrefixes {
		if strings.HasPrefix(text, p) {
			return harness.Outcome{Status: harness.Failed, Output: harness.ClipOutput(text)}
		}
	}
	return harness.Outcome{}
}

// head is the header of a unified exec result, before its output.
func head(text string) string {
	if i := strings.Index(text, "\nOutput:\n"); i >= 0 {
		return text[:i]
	}
	return text[:min(len(text), 300)]
}

// textOutcome reads the exit status that rest starts with and the output
// after the "Output:" line of text.
func textOutcome(rest, text string) harness.Outcome {
	end := strings.IndexByte(rest, '\n')
	if end < 0 {
		end = len(rest)
	}
	code, err := strconv.Atoi(strings.TrimSpace(rest[:end]))
	if err != nil {
		return harness.Outcome{}
	}
	o := harness.Outcome{Status: harness.StatusOfExit(code), Exit: harness.ExitStatus(code)}
	if _, out, ok := strings.Cut(text, "\nOutput:\n"); ok {
		o.Output = harness.ClipOutput(out)
	}
	return o
}

// jsonOutcome reads the JSON form's exit_code and output.
func jsonOutcome(text string) harness.Outcome {
	var s jsonscan.Scanner
	s.Reset([]byte(text))
	var out []byte
	code, hasCode := int64(0), false
	s.Object(func(key []byte) bool {
		switch string(key) {
		case "output":
			out = s.RawString()
		case "metadata":
			s.Object(func(key []byte) bool {
				if string(key) == "exit_code" && s.Kind() != 'n' {
					code, hasCode = s.Int(), true
					return true
				}
				s.Skip()
				return true
			})
		default:
			s.Skip()
		}
		return true
	})
	if s.Err() != nil || !hasCode {
		return harness.Outcome{}
	}
	c := int(code)
	return harness.Outcome{Status: harness.StatusOfExit(c), Exit: harness.ExitStatus(c), Output: harness.ClipOutput(jsonscan.Unescape(out))}
}

// setOutcome gives the records of a call their outcome: a command its
// exit and output, an edit whether it applied, with Codex's words when it
// did not.
func setOutcome(recs []harness.Record, o harness.Outcome) {
	for i := range recs {
		if recs[i].Kind == harness.CommandRecord {
			recs[i].Outcome = o
			continue
		}
		recs[i].Outcome = harness.Outcome{Status: o.Status}
		if o.Status == harness.Failed {
			recs[i].Outcome.Output = o.Output
		}
	}
}

// result gives a pending call's records the outcome its result line
// says: a response item's output text (see outcomeOf), or, where a rollout
// keeps them, exec_command_end's exit_code and aggregated_output and
// patch_apply_end's success.
func (p *parser) result(raw, typ, payload []byte) {
	kind := string(payload)
	if payload == nil {
		kind = string(typ) // a flat file's bare item
	}
	switch kind {
	case "function_call_output", "custom_tool_call_output", "exec_command_end", "patch_apply_end":
	default:
		return
	}
	f := readResult(raw)
	st := &p.st
	at, ok := st.pending[string(f.callID)]
	if !ok {
		return
	}
	delete(st.pending, string(f.callID))
	start := at.start - st.handed
	if start < 0 || start+at.n > len(st.sess.Records) {
		return
	}
	var o harness.Outcome
	switch {
	case kind == "exec_command_end" && f.hasExit:
		c := int(f.exit)
		o = harness.Outcome{Status: harness.StatusOfExit(c), Exit: harness.ExitStatus(c), Output: harness.ClipOutput(jsonscan.Unescape(f.output))}
	case kind == "patch_apply_end" && f.hasSuccess:
		o.Status = harness.Failed
		if f.success {
			o.Status = harness.Succeeded
		}
	case f.output != nil:
		o = outcomeOf(jsonscan.Unescape(f.output))
	}
	if o.Known() {
		setOutcome(st.sess.Records[start:start+at.n], o)
	}
}
