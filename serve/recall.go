package serve

import (
	"fmt"
	"strings"
	"time"

	"github.com/deja-dev/deja/internal/words"
	"github.com/deja-dev/deja/memory/recall"
	"github.com/deja-dev/deja/quote"
)

// RecallOutput is a recall as 'deja recall --json' prints it: also the
// recall tool's structured content, and the body of POST /v1/recall.
type RecallOutput struct {
	Query          string `json:"query"`
	Mode           string `json:"mode"`
	RealizedMode   string `json:"realized_mode"`
	FallbackReason string `json:"fallback_reason"`
	Embedder       string `json:"embedder"`
	TookMS         int64  `json:"took_ms"`
	Note           string `json:"note,omitempty"`
	// NotFound are the query's exact parts that no turn mentions; when
	// there are any, Results is empty.
	NotFound []string `json:"not_found,omitempty"`
	// Respelled are the query's words that no turn holds and the words
	// recall read in their place.
	Respelled []recall.Respelling `json:"respelled,omitempty"`
	Results   []RecallHit         `json:"results"`
	// ResultsCut is how many results were left out to keep the answer
	// within MaxAnswerBytes.
	ResultsCut int `json:"results_cut,omitempty"`
}

// RecallHit is one recalled turn of a RecallOutput. User and Assistant are
// previews (QuestionPreview, AnswerPreview).
type RecallHit struct {
	SessionID string   `json:"session_id"`
	Turn      int      `json:"turn"`
	Score     float64  `json:"score"`
	Started   *string  `json:"started"`
	History   string   `json:"history"`
	Project   string   `json:"project"`
	Line      int      `json:"line"`
	User      string   `json:"user"`
	Assistant string   `json:"assistant"`
	Files     []string `json:"files"`
	Commands  []string `json:"commands"`
	// RecordsCut is how many of the turn's files and commands were left
	// out (MaxRecords of each are listed).
	RecordsCut int `json:"records_cut,omitempty"`
	// From is USER@MACHINE for a turn a team folded in; absent for this
	// machine's own.
	From         string   `json:"from,omitempty"`
	KeywordRank  *int     `json:"keyword_rank"`
	SemanticRank *int     `json:"semantic_rank"`
	Similarity   *float64 `json:"similarity"`
	// Mark is the verdict someone gave this turn or its session ('deja
	// mark'): a rejected approach is said to be one, with why.
	Mark *RecallMark `json:"mark,omitempty"`
	// Changed says how many of the files the turn edited changed on this
	// machine since, of how many it could look at; absent when none did
	// or it cannot tell (it never says a file is unchanged).
	Changed *ChangedFiles `json:"changed_since,omitempty"`
}

// ChangedFiles is how many of the files a turn edited changed since.
type ChangedFiles struct {
	Files int `json:"files"`
	Of    int `json:"of"`
}

// ChangedNote says a turn's edits are older than the files, or nothing.
func ChangedNote(changed, of int) string {
	switch {
	case changed == 0 || of == 0:
		return ""
	case of == 1:
		return "the file it edited changed since"
	case changed == of:
		return fmt.Sprintf("all %d files it edited changed since", of)
	}
	return fmt.Sprintf("%d of the %d files it edited changed since", changed, of)
}

// RecallMark is a result's mark, its texts inert.
type RecallMark struct {
	Verdict string `json:"verdict"`
	Target  string `json:"target"`
	Why     string `json:"why,omitempty"`
	By      string `json:"by"`
}

// AnswerPreview and QuestionPreview are how many characters (runes) of a
// turn's answer and question a recall carries, "…" marking a cut: a turn
// can hold a pasted log of megabytes, which would go whole into every
// 'deja recall --json' and agent's context. The show tool, and 'deja show
// SESSION/TURN', have the whole turn.
const (
	AnswerPreview   = 600
	QuestionPreview = 2000
)

// NewRecallOutput lays out a recall as 'deja recall --json' prints it,
// every field taken from a history inert (quote.Text and quote.Line): an
// agent reads the structured content, and a script prints it. History is
// the path deja read the session from, kept as it is to be opened.
func NewRecallOutput(r *recall.Answer) RecallOutput {
	out := RecallOutput{
		Query: r.Query, Mode: string(r.Mode), RealizedMode: string(r.RealizedMode),
		FallbackReason: r.FallbackReason, Embedder: r.Embedder, TookMS: r.Took.Milliseconds(),
		Note: r.Note, NotFound: r.NotFound, Results: []RecallHit{},
	}
	for _, sp := range r.Respelled {
		out.Respelled = append(out.Respelled, recall.Respelling{Typed: quote.Line(sp.Typed), Read: quote.Line(sp.Read)})
	}
	size := 0
	for i, res := range r.Results {
		h := RecallHit{
			SessionID: quote.Line(res.SessionID), Turn: res.Turn, Score: round(res.Score, 4), History: res.History,
			Project: quote.Line(res.Project), Line: res.Line, User: quote.Text(preview(res.User, QuestionPreview)), Assistant: quote.Text(preview(res.Assistant, AnswerPreview)),
			From: quote.Line(res.From),
		}
		var filesCut, commandsCut int
		h.Files, filesCut = records(res.Files)
		h.Commands, commandsCut = records(res.Commands)
		h.RecordsCut = filesCut + commandsCut
		if size += hitBytes(h); size > MaxAnswerBytes && i > 0 {
			out.ResultsCut = len(r.Results) - i
			break
		}
		if !res.Started.IsZero() {
			s := res.Started.Format(time.RFC3339)
			h.Started = &s
		}
		if res.KeywordRank > 0 {
			rank := res.KeywordRank
			h.KeywordRank = &rank
		}
		if res.SemanticRank > 0 {
			rank := res.SemanticRank
			h.SemanticRank = &rank
			sim := round(float64(res.Similarity), 3)
			h.Similarity = &sim
		}
		if res.Changed > 0 && res.ChangedOf > 0 {
			h.Changed = &ChangedFiles{Files: res.Changed, Of: res.ChangedOf}
		}
		if m := res.Mark; m != nil {
			h.Mark = &RecallMark{Verdict: quote.Line(m.Verdict), Target: quote.Line(m.Target), Why: quote.Text(preview(m.Why, QuestionPreview)), By: quote.Line(m.By)}
		}
		out.Results = append(out.Results, h)
	}
	return out
}

// Text renders a recall for an agent or a person to read: one numbered
// entry per turn, with the IDs the show tool takes.
func (o RecallOutput) Text() string { return o.TextFor("", time.Now()) }

// TextFor is Text for an agent working in the project here (empty: not
// known): each entry says how old its session is, and whether it is from
// this project or another.
func (o RecallOutput) TextFor(here string, now time.Time) string {
	var b strings.Builder
	if o.FallbackReason != "" {
		fmt.Fprintf(&b, "(%s recall fell back to keywords: %s)\n", o.Mode, o.FallbackReason)
	}
	b.WriteString(RespelledNote(o.Respelled))
	if len(o.Results) == 0 {
		fmt.Fprintf(&b, "nothing found for %q: %s\n", o.Query, quote.Line(o.Note))
		return b.String()
	}
	b.WriteString(o.entries(here, now, nil))
	if o.ResultsCut > 0 {
		fmt.Fprintf(&b, "(… %d more results cut to keep this answer short: narrow the query or ask for fewer)\n", o.ResultsCut)
	}
	fmt.Fprintf(&b, "(%s, %d ms, %s; show SESSION/TURN for a whole turn)\n", o.RealizedMode, o.TookMS, o.Embedder)
	return b.String()
}

// NoProject stands for the project of a turn stored with none (a prompt
// of a history that names none: Codex's, cursor-agent's, Copilot CLI's).
const NoProject = "(no project)"

// entries are the numbered, quoted turns of a text answer; why, when set,
// says for each why it came back.
func (o RecallOutput) entries(here string, now time.Time, why func(int) string) string {
	var b strings.Builder
	var origins quote.Origins
	for i, h := range o.Results {
		when := "start unknown"
		if h.Started != nil {
			when = *h.Started
			if t, err := time.Parse(time.RFC3339, *h.Started); err == nil {
				when += ", " + Age(now.Sub(t))
			}
		}
		where := quote.Line(h.Project)
		if h.Project == "" {
			// A prompt history's prompt may name none: not a blank
			// after the last " · ".
			where = NoProject
		}
		if here != "" {
			if recall.InProject(h.Project, here) {
				where += " (this project)"
			} else {
				where += " (another project)"
			}
		}
		if h.From != "" {
			where += " · from " + quote.Line(h.From)
		}
		if why != nil {
			where += " · " + why(i)
		}
		fmt.Fprintf(&b, "%d. %s · %s · %s\n", i+1, TurnRef(h.SessionID, h.Turn), when, where)
		var q strings.Builder
		if h.User != "" {
			fmt.Fprintf(&q, "you: %s\n", oneLine(h.User, 300))
		}
		if h.Assistant != "" {
			// Session IDs start with their harness's name (aider-, claude-).
			agent, _, _ := strings.Cut(h.SessionID, "-")
			fmt.Fprintf(&q, "%s: %s\n", agent, oneLine(h.Assistant, AnswerPreview))
		}
		if len(h.Files) > 0 {
			fmt.Fprintf(&q, "files: %s\n", joinLines(h.Files, ", "))
		}
		if len(h.Commands) > 0 {
			fmt.Fprintf(&q, "ran: %s\n", joinLines(h.Commands, "; "))
		}
		if c := h.Changed; c != nil {
			fmt.Fprintf(&b, "   (%s: read it as it was then)\n", ChangedNote(c.Files, c.Of))
		}
		if m := h.Mark; m != nil {
			// Said outside the quote, by deja: whoever marked it judged
			// the approach; why they did is their words, quoted.
			fmt.Fprintf(&b, "   (marked %s by %s: what this %s did was judged %s; the reason is quoted below)\n", m.Verdict, m.By, markedWhat(m.Target), m.Verdict)
			fmt.Fprintf(&q, "marked %s because: %s\n", m.Verdict, oneLine(m.Why, 300))
		}
		b.WriteString(quote.Block(q.String(), origins.Imported(h.History)))
		if h.RecordsCut > 0 {
			b.WriteString(recordsCutNote(h.RecordsCut, TurnRef(h.SessionID, h.Turn)))
		}
	}
	return b.String()
}

// preview is s cut to its first n runes, "…" marking the cut. It reads
// no further than the cut, however long s is, and a preview previewed
// again is unchanged (a recall through a server is laid out twice).
func preview(s string, n int) string {
	runes := 0
	for i := range s {
		if runes == n {
			return strings.TrimSpace(s[:i]) + "…"
		}
		runes++
	}
	return s
}

// oneLine is s on one line, inert (quote.Line), cut to n runes.
func oneLine(s string, n int) string {
	return preview(strings.Join(strings.Fields(quote.Line(s)), " "), n)
}

// joinLines joins records, each on one line and inert.
func joinLines(rs []string, sep string) string {
	lines := make([]string, len(rs))
	for i, r := range rs {
		lines[i] = quote.Line(r)
	}
	return strings.Join(lines, sep)
}

func round(x float64, digits int) float64 {
	p := 1.0
	for range digits {
		p *= 10
	}
	if x < 0 {
		return -float64(int64(-x*p+0.5)) / p
	}
	return float64(int64(x*p+0.5)) / p
}

// lines is records (files, commands), each on one line and inert; never
// nil.
func lines(rs []string) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = quote.Line(r)
	}
	return out
}

// Age says how long ago, as people say it.
func Age(d time.Duration) string {
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return words.Count(int(d.Minutes()), "minute") + " ago"
	case d < 48*time.Hour:
		return words.Count(int(d.Hours()), "hour") + " ago"
	case d < 60*24*time.Hour:
		return words.Count(int(d.Hours()/24), "day") + " ago"
	case d < 2*365*24*time.Hour:
		return words.Count(int(d.Hours()/24/30), "month") + " ago"
	}
	return words.Count(int(d.Hours()/24/365), "year") + " ago"
}

// RespelledNote is one line per word recall read in place of one typed,
// `note: read "gunicorn" for "gunicron"`, each word inert.
func RespelledNote(rs []recall.Respelling) string {
	var b strings.Builder
	for _, r := range rs {
		fmt.Fprintf(&b, "note: read %q for %q\n", quote.Line(r.Read), quote.Line(r.Typed))
	}
	return b.String()
}

// markedWhat is what a mark's target names: a turn or a whole session.
func markedWhat(target string) string {
	if strings.Contains(target, "/") {
		return "turn"
	}
	return "session"
}
