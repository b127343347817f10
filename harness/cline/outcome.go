package cline

import (
	"strings"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/internal/jsonscan"
)

// result gives a pending tool_use's records the outcome its tool_result
// says: is_error, where the result has it (Roo Code's native calls, the
// Cline SDK), as the status, and a command's text as its output. Neither
// writes an exit status there, and results of calls with no record are
// never decoded.
func (p *parser) result(b *block) {
	at, ok := p.pending[b.ToolUseID]
	if !ok {
		return
	}
	delete(p.pending, b.ToolUseID)
	var o harness.Outcome
	if b.IsError != nil {
		o.Status = harness.Succeeded
		if *b.IsError {
			o.Status = harness.Failed
		}
	}
	recs := p.session.Records[at.start : at.start+at.n]
	if recs[0].Kind == harness.CommandRecord || o.Status == harness.Failed {
		o.Output = harness.ClipOutput(strings.Join(resultTexts(b.Content), "\n"))
	}
	if !o.Known() {
		return
	}
	for i := range recs {
		recs[i].Outcome = o
	}
}

// spans returns the text an edit call replaced and wrote, from the inputs
// the tools take: write_to_file's content (whole), replace_in_file's and
// apply_diff's SEARCH/REPLACE blocks in diff, the SDK editor's old_text
// and new_text, Roo Code's search_and_replace search and replace
// (cline src/core/assistant-message/diff.ts; Roo Code
// src/core/tools; the corpus's editor and write_to_file calls).
func spans(input []byte) []harness.Span {
	var content, diff, oldText, newText *string
	var sc jsonscan.Scanner
	sc.Reset(input)
	sc.Object(func(key []byte) bool {
		var dst **string
		switch string(key) {
		case "content":
			dst = &content
		case "diff":
			dst = &diff
		case "old_text", "old_str", "search":
			dst = &oldText
		case "new_text", "new_str", "replace":
			dst = &newText
		default:
			return false
		}
		if sc.Kind() != '"' {
			return false
		}
		v := sc.String()
		*dst = &v
		return true
	})
	switch {
	case content != nil:
		sp := harness.Span{Whole: true}
		sp.New, sp.Clipped = harness.ClipSpan(*content)
		return []harness.Span{sp}
	case diff != nil:
		var out []harness.Span
		for _, b := range searchReplace(*diff) {
			out = append(out, span(b[0], b[1]))
		}
		return out
	case oldText != nil || newText != nil:
		var o, n string
		if oldText != nil {
			o = *oldText
		}
		if newText != nil {
			n = *newText
		}
		return []harness.Span{span(o, n)}
	}
	return nil
}

func span(old, new string) harness.Span {
	var sp harness.Span
	var oc, nc bool
	sp.Old, oc = harness.ClipSpan(old)
	sp.New, nc = harness.ClipSpan(new)
	sp.Clipped = oc || nc
	return sp
}

// searchReplace returns the (search, replace) pairs of a diff of
// SEARCH/REPLACE blocks: Cline's "------- SEARCH", "=======",
// "+++++++ REPLACE", and the older and Roo Code's "<<<<<<< SEARCH" …
// ">>>>>>> REPLACE", whose search may open with ":start_line:" and a
// "-------" line.
func searchReplace(diff string) [][2]string {
	var out [][2]string
	var search, replace []string
	state := 0 // 0 outside a block, 1 in its search, 2 in its replace
	for _, line := range strings.Split(diff, "\n") {
		t := strings.TrimRight(line, "\r")
		switch {
		case state == 0 && isMarker(t, "-", "<", "SEARCH"):
			state, search, replace = 1, search[:0], replace[:0]
		case state == 1 && (strings.HasPrefix(t, ":start_line:") || strings.HasPrefix(t, ":end_line:") || (t == "-------" && len(search) == 0)):
		case state == 1 && t == "=======":
			state = 2
		case state == 2 && isMarker(t, "+", ">", "REPLACE"):
			out = append(out, [2]string{strings.Join(search, "\n"), strings.Join(replace, "\n")})
			state = 0
		case state == 1:
			search = append(search, t)
		case state == 2:
			replace = append(replace, t)
		}
	}
	return out
}

// isMarker reports a line of three or more of one of two characters and
// then the word: "------- SEARCH", "<<<<<<< SEARCH".
func isMarker(line, a, b, word string) bool {
	mark, w, ok := strings.Cut(line, " ")
	if !ok || w != word || len(mark) < 3 {
		return false
	}
	return strings.Trim(mark, a) == "" || strings.Trim(mark, b) == ""
}
