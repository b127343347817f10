package serve

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"unicode/utf8"
)

// The show tool's bounds. One session of the corpus is 89,639 characters
// of Markdown; an agent's context is better spent on the part it asked
// for, and it can page on.
const (
	DefaultShowChars = 8000
	MaxShowChars     = 200000
)

// ShowPage is a bounded show: the session's turns as Markdown, cut to a
// number of characters, and what was cut. The show tool's text is the
// Markdown and its structured content the rest, so the two never carry
// the same payload.
type ShowPage struct {
	SessionInfo
	// Shown lists the turns the Markdown holds.
	Shown []ShownTurn `json:"shown"`
	// Chars is the Markdown's length in characters, TotalChars that of
	// every turn asked for.
	Chars      int `json:"chars"`
	TotalChars int `json:"total_chars"`
	// Cut says that turns, or the end of one, were left out; NextFrom is
	// the from that continues (absent when the cut was inside the last
	// turn asked for), and Note says it in words.
	Cut      bool   `json:"cut"`
	NextFrom *int   `json:"next_from,omitempty"`
	Note     string `json:"note,omitempty"`
	// Markdown is the text itself, in the HTTP answer only: the MCP tool
	// sends it as text content.
	Markdown string `json:"markdown,omitempty"`
}

// ShownTurn is one turn of a ShowPage.
type ShownTurn struct {
	Turn  int `json:"turn"`
	Line  int `json:"line"`
	Chars int `json:"chars"`
	// Cut marks a turn shown only in part.
	Cut      bool     `json:"cut,omitempty"`
	Files    []string `json:"files"`
	Commands []string `json:"commands"`
	// RecordsCut is how many of the turn's files and commands the list
	// leaves out (MaxRecords of each are listed; the Markdown has them).
	RecordsCut int `json:"records_cut,omitempty"`
}

// shownTurn is a turn of a page, n characters of it shown.
func shownTurn(t Turn, n int, cut bool) ShownTurn {
	files, filesCut := records(t.Files)
	commands, commandsCut := records(t.Commands)
	return ShownTurn{t.Turn, t.Line, n, cut, files, commands, filesCut + commandsCut}
}

// Page bounds a show to maxChars characters of Markdown (0: the default,
// at most MaxShowChars): whole turns while they fit, the first one cut if
// even it does not, and a last line that says what was left out and how
// to get it.
func (o ShowOutput) Page(maxChars int) ShowPage {
	if maxChars <= 0 {
		maxChars = DefaultShowChars
	}
	maxChars = min(maxChars, MaxShowChars)
	p := ShowPage{SessionInfo: o.SessionInfo, Shown: []ShownTurn{}}
	head := o.heading()
	md := []byte(head)
	used := utf8.RuneCountInString(head)
	p.TotalChars = used
	parts := make([]string, len(o.Turns))
	imported := o.imported()
	for i, t := range o.Turns {
		parts[i] = t.markdown(imported)
		p.TotalChars += utf8.RuneCountInString(parts[i])
	}
	// noteRoom keeps space for the last line within the bound.
	const noteRoom = 240
	budget := max(maxChars-noteRoom, used)
	for i, t := range o.Turns {
		n := utf8.RuneCountInString(parts[i])
		if used+n <= budget {
			md = append(md, parts[i]...)
			used += n
			p.Shown = append(p.Shown, shownTurn(t, n, false))
			continue
		}
		p.Cut = true
		if len(p.Shown) == 0 {
			// Not even this turn fits: its beginning, then how to read it
			// all.
			keep := max(budget-used, 0)
			piece := preview(parts[i], keep)
			c := utf8.RuneCountInString(piece)
			md = append(md, piece...)
			used += c
			p.Shown = append(p.Shown, shownTurn(t, c, true))
			p.Note = fmt.Sprintf("%s is cut at %d of its %d characters: ask for it with max_chars %d to read all of it",
				turnName(t.Turn), keep, n, min(n+utf8.RuneCountInString(head)+noteRoom, MaxShowChars))
			if i+1 < len(o.Turns) {
				next := o.Turns[i+1].Turn
				p.NextFrom = &next
				p.Note += fmt.Sprintf(", or from %d for the turns after it", next)
			}
		} else {
			next := t.Turn
			p.NextFrom = &next
			p.Note = fmt.Sprintf("%d of %d turns shown (%d of %d characters): ask with from %d for the rest, or a larger max_chars",
				len(p.Shown), len(o.Turns), used, p.TotalChars, next)
		}
		break
	}
	if p.Cut {
		note := "\n---\n[cut: " + p.Note + "]\n"
		md = append(md, note...)
		used += utf8.RuneCountInString(note)
	}
	p.Chars = used
	p.Markdown = string(md)
	return p
}

func turnName(turn int) string {
	if turn == -1 {
		return "the part before the first message"
	}
	return fmt.Sprintf("turn %d", turn)
}

// serveShow answers POST /v1/show: a ShowRequest in, a ShowPage with its
// Markdown out, bounded as the show tool is.
func (m *Memory) serveShow(w http.ResponseWriter, r *http.Request) {
	var req ShowRequest
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxRequestBytes))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("reading the request: %v: send a JSON object such as {\"session\": \"SESSION/2\", \"max_chars\": 8000}", err))
		return
	}
	if req.MaxChars < 0 {
		writeError(w, http.StatusBadRequest, badRequest("max_chars is %d: use a positive number", req.MaxChars).Error())
		return
	}
	out, err := m.Show(r.Context(), req)
	switch {
	case errors.Is(err, ErrBadRequest):
		writeError(w, http.StatusBadRequest, err.Error())
		return
	case errors.Is(err, ErrNotFound):
		writeError(w, http.StatusNotFound, err.Error())
		return
	case err != nil:
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	writeJSON(w, http.StatusOK, out.Page(req.MaxChars))
}
