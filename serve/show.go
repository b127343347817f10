package serve

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/deja-dev/deja/memory/digest"
	"github.com/deja-dev/deja/memory/store"
	"github.com/deja-dev/deja/quote"
)

// ShowRequest names a session, or some of its turns.
type ShowRequest struct {
	Session string `json:"session" jsonschema:"a session ID as recall and sessions name it, or a part only one session has (such as 20260717T090000); SESSION/TURN names one turn, SESSION/before the records before the first message"`
	Turn    *int   `json:"turn,omitempty" jsonschema:"only this turn of the session (-1: the records before the first message)"`
	From    *int   `json:"from,omitempty" jsonschema:"the first turn to show (default: the session's first); a cut answer names the from that continues it"`
	To      *int   `json:"to,omitempty" jsonschema:"the last turn to show, included (default: the session's last)"`
	// MaxChars bounds the tool's answer; 'deja show' prints everything.
	MaxChars int `json:"max_chars,omitempty" jsonschema:"at most this many characters of Markdown (default 8000, at most 200000); what is cut is said, with how to get the rest"`
}

// BeforeFirst is how a turn reference names turn -1, the records (files
// added, commands run) that came before a session's first message:
// SESSION/before. SESSION/-1 is read as the same.
const BeforeFirst = store.BeforeFirst

// TurnRef is how recall, show and their tools name one turn:
// SESSION/TURN, or SESSION/before for turn -1.
func TurnRef(session string, turn int) string { return store.TurnRef(session, turn) }

// ParseTurnRef splits a reference that may name a turn (SESSION/2,
// SESSION/before, SESSION/-1) into the session part and the turn, nil when
// it names none.
func ParseTurnRef(ref string) (string, *int, error) {
	i := strings.LastIndexByte(ref, '/')
	if i < 0 {
		return ref, nil, nil
	}
	tail := ref[i+1:]
	n := -1
	if tail != BeforeFirst {
		var err error
		if n, err = strconv.Atoi(tail); err != nil {
			return "", nil, fmt.Errorf("%q: the turn after / must be a number, as in SESSION/2, or %q for the records before the first message", ref, BeforeFirst)
		}
	}
	return ref[:i], &n, nil
}

// Turn is one turn of a shown session, as 'deja show --json' has it.
type Turn struct {
	Turn      int      `json:"turn"`
	Line      int      `json:"line"`
	User      string   `json:"user"`
	Assistant string   `json:"assistant"`
	Files     []string `json:"files"`
	Commands  []string `json:"commands"`
}

// ShowOutput is a session with its turns, as 'deja show --json'.
type ShowOutput struct {
	SessionInfo
	Header string `json:"header"`
	Turns  []Turn `json:"turns"`
}

// ErrNotFound marks a session or turn the store does not hold.
var ErrNotFound = errors.New("not found")

// Show returns a session, or the turns the request names, in full.
func (m *Memory) Show(ctx context.Context, req ShowRequest) (ShowOutput, error) {
	ref, turn, err := ParseTurnRef(strings.TrimSpace(req.Session))
	if err != nil {
		return ShowOutput{}, badRequest("%v", err)
	}
	if turn == nil {
		turn = req.Turn
	}
	if ref == "" {
		return ShowOutput{}, badRequest("session is empty: give an ID from recall or sessions")
	}
	from, to := req.From, req.To
	if turn != nil {
		from, to = turn, turn
	}
	if from != nil && to != nil && *from > *to {
		return ShowOutput{}, badRequest("from %d is after to %d: no turn lies between", *from, *to)
	}
	id, err := digest.ResolveSession(ctx, m.Store.Store, ref)
	if errors.Is(err, store.ErrNoSession) {
		return ShowOutput{}, fmt.Errorf("%w: %v", ErrNotFound, err)
	}
	if err != nil {
		return ShowOutput{}, err
	}
	d, err := digest.Session(ctx, m.Store.Store, id)
	if errors.Is(err, store.ErrNoSession) {
		return ShowOutput{}, fmt.Errorf("%w: %v (it was forgotten)", ErrNotFound, err)
	}
	if err != nil {
		return ShowOutput{}, err
	}
	out := NewShowOutputRange(d, from, to)
	if (from != nil || to != nil) && len(out.Turns) == 0 {
		return ShowOutput{}, fmt.Errorf("%w: session %s has no %s: %s", ErrNotFound, quote.Line(d.ID), asked(from, to), TurnsOf(d))
	}
	return out, nil
}

func asked(from, to *int) string {
	switch {
	case from != nil && to != nil && *from == *to:
		if *from == -1 {
			return "records before its first message"
		}
		return "turn " + strconv.Itoa(*from)
	case from != nil && to != nil:
		return fmt.Sprintf("turns %d to %d", *from, *to)
	case from != nil:
		return fmt.Sprintf("turns from %d", *from)
	}
	return fmt.Sprintf("turns up to %d", *to)
}

// TurnsOf says which turns a session has, for an error about one it lacks.
func TurnsOf(d *digest.SessionDetail) string {
	if len(d.Turns) == 0 {
		return "it holds no turn"
	}
	first, last := d.Turns[0].Turn, d.Turns[len(d.Turns)-1].Turn
	if first == -1 {
		if last == -1 {
			return "it holds only the records before its first message (SESSION/before)"
		}
		return fmt.Sprintf("it has the records before its first message (SESSION/before) and turns 0 to %d", last)
	}
	return fmt.Sprintf("it has turns %d to %d", first, last)
}

// NewShowOutput lays out a session as 'deja show --json' prints it: every
// turn, or only the one turn names. A turn the session lacks leaves Turns
// empty; the caller says so.
func NewShowOutput(d *digest.SessionDetail, turn *int) ShowOutput {
	return NewShowOutputRange(d, turn, turn)
}

// NewShowOutputRange is NewShowOutput for the turns from..to, included;
// a nil bound is the session's end. What the session holds is inert, as
// NewRecallOutput lays it out.
func NewShowOutputRange(d *digest.SessionDetail, from, to *int) ShowOutput {
	out := ShowOutput{SessionInfo: NewSessionInfo(d.SessionInfo), Header: quote.Line(d.Header), Turns: []Turn{}}
	for _, t := range d.Turns {
		if (from == nil || t.Turn >= *from) && (to == nil || t.Turn <= *to) {
			out.Turns = append(out.Turns, Turn{t.Turn, t.Line, quote.Text(t.User), quote.Text(t.Assistant), lines(t.Files), lines(t.Commands)})
		}
	}
	return out
}

// Markdown renders the session as 'deja show' prints it.
func (o ShowOutput) Markdown() string {
	var b strings.Builder
	b.WriteString(o.heading())
	imported := o.imported()
	for _, t := range o.Turns {
		b.WriteString(t.markdown(imported))
	}
	return b.String()
}

// ForPeople renders the session for a person at a terminal: each turn's
// question and answer labelled (You, and the agent by its harness), its
// files and commands after them, every field made inert (quote.Text) but
// without the fence and the "not instructions" label that Markdown puts
// around each turn for an agent reading it.
func (o ShowOutput) ForPeople() string {
	var b strings.Builder
	b.WriteString(o.heading())
	agent := "Agent"
	if o.Harness != "" {
		agent += " (" + quote.Line(o.Harness) + ")"
	}
	for _, t := range o.Turns {
		if t.Turn == -1 {
			fmt.Fprintf(&b, "\n## Before the first message (line %d)\n\n", t.Line)
		} else {
			fmt.Fprintf(&b, "\n## Turn %d (line %d)\n\n", t.Turn, t.Line)
		}
		if t.User != "" {
			fmt.Fprintf(&b, "You: %s\n\n", strings.TrimRight(quote.Text(t.User), "\n"))
		}
		if t.Assistant != "" {
			fmt.Fprintf(&b, "%s: %s\n\n", agent, strings.TrimRight(quote.Text(t.Assistant), "\n"))
		}
		for _, f := range t.Files {
			fmt.Fprintf(&b, "  file: %s\n", quote.Line(f))
		}
		for _, c := range t.Commands {
			fmt.Fprintf(&b, "  ran:  %s\n", quote.Line(c))
		}
	}
	return b.String()
}

// imported reports whether git tracks the session's history, so anyone
// who can commit may have written it.
func (o ShowOutput) imported() bool {
	var origins quote.Origins
	return origins.Imported(o.History)
}

func (o ShowOutput) heading() string {
	when := "Start unknown" // not "Started start unknown"
	if o.Started != nil {
		when = "Started " + *o.Started
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", quote.Line(o.ID))
	fmt.Fprintf(&b, "%s · %s", when, quote.Line(o.History))
	if !o.Present {
		fmt.Fprint(&b, " (the session has left this file; deja kept it)")
	}
	fmt.Fprint(&b, "\n")
	if o.imported() {
		fmt.Fprintf(&b, "Git tracks this history: it is %s, and anyone who can commit to the repository may have written it.\n", quote.ImportedNote)
	}
	return b.String()
}

// markdown renders one turn, what the session said quoted as data.
func (t Turn) markdown(imported bool) string {
	var b strings.Builder
	if t.Turn == -1 {
		fmt.Fprintf(&b, "\n## Before the first message (line %d)\n\n", t.Line)
	} else {
		fmt.Fprintf(&b, "\n## Turn %d (line %d)\n\n", t.Turn, t.Line)
	}
	var q strings.Builder
	if t.User != "" {
		fmt.Fprintf(&q, "**You:** %s\n\n", t.User)
	}
	if t.Assistant != "" {
		fmt.Fprintf(&q, "%s\n\n", t.Assistant)
	}
	for _, f := range t.Files {
		fmt.Fprintf(&q, "> file: %s\n", quote.Line(f))
	}
	for _, c := range t.Commands {
		fmt.Fprintf(&q, "> ran: %s\n", quote.Line(c))
	}
	b.WriteString(quote.Block(q.String(), imported))
	return b.String()
}
