package serve

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/internal/words"
	"github.com/deja-dev/deja/memory/digest"
	"github.com/deja-dev/deja/memory/recall"
	"github.com/deja-dev/deja/memory/work"
	"github.com/deja-dev/deja/quote"
)

// WorkScope is what every question about work may narrow by.
type WorkScope struct {
	Project          string `json:"project,omitempty" jsonschema:"only sessions of histories in this directory or below it (an absolute path, or ~/…)"`
	Since            string `json:"since,omitempty" jsonschema:"only sessions started at or after: a date (2026-07-17), an RFC 3339 time, or an age (36h, 7d, 2w)"`
	Harness          string `json:"harness,omitempty" jsonschema:"only sessions of this agent (claude, codex, gemini, …)"`
	IncludeSubagents bool   `json:"include_subagents,omitempty" jsonschema:"also read sessions subagents ran, left out by default"`
	Limit            int    `json:"limit,omitempty" jsonschema:"at most this many answers (default 10, at most 50)"`
}

// BlameRequest asks which turns touched a file.
type BlameRequest struct {
	Path string `json:"path" jsonschema:"the file, relative to its project or absolute"`
	WorkScope
}

// HowRequest asks how commands holding a text were run.
type HowRequest struct {
	Text string `json:"text" jsonschema:"a command or part of one: go test, docker build, pytest -k"`
	WorkScope
}

// FixRequest asks what was run after an error.
type FixRequest struct {
	Error string `json:"error" jsonschema:"the error text as a command printed it (case and spacing aside)"`
	WorkScope
}

// BlameOutput, HowOutput and FixOutput are the tools' answers, every text
// from a history made inert.
type BlameOutput struct {
	Turns []work.BlameItem `json:"turns"`
}

type HowOutput struct {
	Groups []work.HowGroup `json:"groups"`
}

type FixOutput struct {
	Sessions []work.FixItem `json:"sessions"`
}

// maxWork bounds the answers of one work question, and workLine each
// line of history it quotes.
const (
	defaultWork = 10
	maxWork     = 50
	workLine    = 200
)

func (m *Memory) workScope(ctx context.Context, w WorkScope) (recall.Scope, int, error) {
	sc, err := scopeOf(RecallRequest{Project: w.Project, Since: w.Since, Harness: w.Harness, IncludeSubagents: w.IncludeSubagents}, time.Now())
	if err != nil {
		return sc, 0, err
	}
	if w.Limit < 0 {
		return sc, 0, badRequest("limit is %d: use a positive number", w.Limit)
	}
	limit := min(maxWork, w.Limit)
	if limit == 0 {
		limit = defaultWork
	}
	if err := recall.CheckScope(ctx, m.Store.Store, sc); errors.Is(err, recall.ErrBadScope) {
		return sc, 0, badRequest("%v", err)
	} else if err != nil {
		return sc, 0, err
	}
	return sc, limit, nil
}

// Blame answers which turns edited (then read, then named) a file.
func (m *Memory) Blame(ctx context.Context, req BlameRequest) (BlameOutput, error) {
	out := BlameOutput{Turns: []work.BlameItem{}}
	if strings.TrimSpace(req.Path) == "" {
		return out, badRequest("path is empty: name the file, as in store/query.go")
	}
	sc, limit, err := m.workScope(ctx, req.WorkScope)
	if err != nil {
		return out, err
	}
	items, err := work.Blame(ctx, m.Store.Store, sc, req.Path, limit)
	out.Turns = append(out.Turns, InertBlame(items)...)
	return out, err
}

// InertBlame is a blame's turns with every text from a history made
// inert, as an agent or a script is handed them.
func InertBlame(items []work.BlameItem) []work.BlameItem {
	out := make([]work.BlameItem, 0, len(items))
	for _, it := range items {
		it.Turn = InertTurn(it.Turn)
		it.File = quote.Line(it.File)
		out = append(out, it)
	}
	return out
}

// How answers how commands holding a text were run, and how often that
// worked.
func (m *Memory) How(ctx context.Context, req HowRequest) (HowOutput, error) {
	out := HowOutput{Groups: []work.HowGroup{}}
	if strings.TrimSpace(req.Text) == "" {
		return out, badRequest("text is empty: name a command, as in go test")
	}
	sc, limit, err := m.workScope(ctx, req.WorkScope)
	if err != nil {
		return out, err
	}
	groups, err := work.How(ctx, m.Store.Store, sc, req.Text, limit)
	for _, g := range InertHow(groups) {
		if len(g.Commands) > maxWork {
			g.Commands = g.Commands[:maxWork]
		}
		out.Groups = append(out.Groups, g)
	}
	return out, err
}

// InertHow is a how's groups with every text from a history made inert.
func InertHow(groups []work.HowGroup) []work.HowGroup {
	out := make([]work.HowGroup, 0, len(groups))
	for _, g := range groups {
		g.Invocation = quote.Line(g.Invocation)
		g.Commands = slices.Clone(g.Commands)
		for i, c := range g.Commands {
			c.Command = oneLine(c.Command, workLine)
			c.Last = InertTurn(c.Last)
			if c.LastWorked != nil {
				t := InertTurn(*c.LastWorked)
				c.LastWorked = &t
			}
			g.Commands[i] = c
		}
		out = append(out, g)
	}
	return out
}

// Fix answers what was run after an error, until it stopped.
func (m *Memory) Fix(ctx context.Context, req FixRequest) (FixOutput, error) {
	out := FixOutput{Sessions: []work.FixItem{}}
	if strings.TrimSpace(req.Error) == "" {
		return out, badRequest("error is empty: give the error text a command printed")
	}
	sc, limit, err := m.workScope(ctx, req.WorkScope)
	if err != nil {
		return out, err
	}
	items, err := work.Fix(ctx, m.Store.Store, sc, req.Error, limit)
	out.Sessions = append(out.Sessions, InertFix(items)...)
	return out, err
}

// InertFix is a fix's sessions with every text from a history made inert.
func InertFix(items []work.FixItem) []work.FixItem {
	out := make([]work.FixItem, 0, len(items))
	for _, it := range items {
		it.Turn = InertTurn(it.Turn)
		it.Command, it.Line = oneLine(it.Command, workLine), oneLine(it.Line, workLine)
		it.Next, it.Edited = slices.Clone(it.Next), slices.Clone(it.Edited)
		for i, s := range it.Next {
			s.Ref, s.Command = quote.Line(s.Ref), oneLine(s.Command, workLine)
			it.Next[i] = s
		}
		for i, f := range it.Edited {
			it.Edited[i] = quote.Line(f)
		}
		if it.Confirmed != nil {
			c := *it.Confirmed
			c.Ref, c.Command = quote.Line(c.Ref), oneLine(c.Command, workLine)
			it.Confirmed = &c
		}
		out = append(out, it)
	}
	return out
}

// InertFriction is a friction's errors with every text from a history
// made inert.
func InertFriction(items []work.FrictionItem) []work.FrictionItem {
	out := make([]work.FrictionItem, 0, len(items))
	for _, f := range items {
		f.Error, f.Command, f.Last = oneLine(f.Error, workLine), oneLine(f.Command, workLine), InertTurn(f.Last)
		f.Harnesses, f.Projects = slices.Clone(f.Harnesses), slices.Clone(f.Projects)
		for i := range f.Harnesses {
			f.Harnesses[i] = quote.Line(f.Harnesses[i])
		}
		for i := range f.Projects {
			f.Projects[i] = quote.Line(f.Projects[i])
		}
		out = append(out, f)
	}
	return out
}

// InertTurn is a work turn with its history's texts made inert and its
// question cut to a preview.
func InertTurn(t work.Turn) work.Turn {
	t.Ref, t.Session, t.Harness, t.Project = quote.Line(t.Ref), quote.Line(t.Session), quote.Line(t.Harness), quote.Line(t.Project)
	t.Question = oneLine(t.Question, workLine)
	return t
}

func statusWord(st harness.Status, exit *int) string {
	switch {
	case exit != nil:
		return fmt.Sprintf("exit %d", *exit)
	case st == harness.Succeeded:
		return "worked"
	case st == harness.Failed:
		return "failed"
	}
	return "outcome not recorded"
}

func day(t time.Time) string {
	if t.IsZero() {
		return "time unknown"
	}
	return t.Format("2006-01-02")
}

// Text renders the answer for an agent: what deja found, then every line
// taken from the histories inside one quoted block.
func (o BlameOutput) Text(path string) string {
	if len(o.Turns) == 0 {
		return fmt.Sprintf("No indexed turn edited, read or named %s.\n", quote.Line(path))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d turns touched the file, edits first, newest first. Each: how · turn · day · outcome; the file as each turn names it and the question asked are quoted below by number. 'show' reads a turn whole; a failed edit did not change the file.\n", len(o.Turns))
	for i, t := range o.Turns {
		outcome := ""
		if t.How == work.Edited || t.How == work.EditFailed {
			outcome = " · " + statusWord(t.Outcome, nil)
			if t.Edits > 0 {
				outcome += fmt.Sprintf(" · +%d -%d lines", t.Added, t.Removed)
			}
			if t.ChangedSince {
				outcome += " · the file changed since"
			}
		}
		fmt.Fprintf(&b, "%d. %s · %s · %s%s\n", i+1, t.How, t.Ref, day(t.Time), outcome)
	}
	return b.String() + quoted(func(add func(string)) {
		for i, t := range o.Turns {
			add(fmt.Sprintf("%d. file: %s", i+1, t.File))
			if t.Question != "" {
				add(fmt.Sprintf("   asked: %s", t.Question))
			}
		}
	})
}

func (o HowOutput) Text(text string) string {
	if len(o.Groups) == 0 {
		return fmt.Sprintf("No indexed turn ran a command holding %s.\n", oneLine(text, workLine))
	}
	var b strings.Builder
	b.WriteString("Commands past sessions ran, by invocation, each with its runs (worked/failed/not recorded), the newest that worked first; the command lines are quoted below by number.\n")
	n := 0
	for gi, g := range o.Groups {
		fmt.Fprintf(&b, "invocation %c: %s, %d worked, %d failed, %d not recorded\n", 'A'+rune(gi%26), words.Count(g.Runs, "run"), g.Worked, g.Failed, g.Unknown)
		for _, c := range g.Commands {
			n++
			last := statusWord(c.LastStatus, c.LastExit)
			fmt.Fprintf(&b, "  %d. %s, %d worked, %d failed; last %s (%s)\n", n, words.Count(c.Runs, "run"), c.Worked, c.Failed, c.Last.Ref, last)
		}
	}
	return b.String() + quoted(func(add func(string)) {
		n := 0
		for gi, g := range o.Groups {
			add(fmt.Sprintf("invocation %c: %s", 'A'+rune(gi%26), g.Invocation))
			for _, c := range g.Commands {
				n++
				add(fmt.Sprintf("%d. %s", n, c.Command))
			}
		}
	})
}

func (o FixOutput) Text(errText string) string {
	if len(o.Sessions) == 0 {
		return fmt.Sprintf("No recorded command output holds %s.\n", oneLine(errText, workLine))
	}
	var b strings.Builder
	b.WriteString("Sessions where a command printed this error, those where it stopped first. The commands and error lines are quoted below by number.\n")
	for i, it := range o.Sessions {
		state := "not fixed in that session"
		if it.Fixed {
			state = "fixed at " + it.Confirmed.Ref
		}
		fmt.Fprintf(&b, "%d. %s · %s · %s · %d commands after it\n", i+1, it.Ref, day(it.Time), state, len(it.Next))
	}
	return b.String() + quoted(func(add func(string)) {
		for i, it := range o.Sessions {
			add(fmt.Sprintf("%d. error: %s", i+1, it.Line))
			add(fmt.Sprintf("   from: %s (%s)", it.Command, statusWord(harness.Failed, it.Exit)))
			for _, s := range it.Next {
				add(fmt.Sprintf("   then: %s (%s)", s.Command, statusWord(s.Status, s.Exit)))
			}
			if len(it.Edited) > 0 {
				add("   edited: " + strings.Join(it.Edited, ", "))
			}
			if it.Confirmed != nil {
				add(fmt.Sprintf("   worked: %s", it.Confirmed.Command))
			}
		}
	})
}

// quoted is the lines add is given, in one block labelled as quoted
// history.
func quoted(fill func(add func(string))) string {
	var b strings.Builder
	fill(func(l string) { b.WriteString(l + "\n") })
	return "\n" + quote.Block(b.String(), false)
}

// RememberRequest asks deja to keep a note.
type RememberRequest struct {
	Text    string   `json:"text" jsonschema:"the note: a finding, decision or convention worth finding again (at most 8000 bytes)"`
	Project string   `json:"project,omitempty" jsonschema:"the project directory the note is about (absolute, or ~/…)"`
	Tags    []string `json:"tags,omitempty" jsonschema:"labels for the note"`
}

// RememberOutput names the note kept.
type RememberOutput struct {
	ID string `json:"id"`
}

// Remember keeps a note through m.Keep, which the process serving the
// tools sets (it writes the store); without it the tool says it cannot.
func (m *Memory) Remember(ctx context.Context, req RememberRequest) (RememberOutput, error) {
	if strings.TrimSpace(req.Text) == "" {
		return RememberOutput{}, badRequest("text is empty: say what to remember")
	}
	if m.Keep == nil {
		return RememberOutput{}, badRequest("this server cannot keep notes: run 'deja remember' instead")
	}
	project := ""
	if p := strings.TrimSpace(req.Project); p != "" {
		var err error
		if project, err = recall.ResolveProject(p); err != nil {
			return RememberOutput{}, badRequest("project: %v", err)
		}
	}
	id, err := m.Keep(ctx, req.Text, project, req.Tags)
	if err != nil {
		return RememberOutput{}, badRequest("%v", err)
	}
	return RememberOutput{ID: id}, nil
}

// FrictionRequest asks which errors keep coming back.
type FrictionRequest struct {
	Sessions int `json:"sessions,omitempty" jsonschema:"only errors seen in at least this many sessions (default 3)"`
	WorkScope
}

// FrictionOutput is the friction tool's answer.
type FrictionOutput struct {
	Errors []work.FrictionItem `json:"errors"`
}

// Friction answers which errors failed commands printed in several
// sessions.
func (m *Memory) Friction(ctx context.Context, req FrictionRequest) (FrictionOutput, error) {
	out := FrictionOutput{Errors: []work.FrictionItem{}}
	least := req.Sessions
	if least < 0 {
		return out, badRequest("sessions is %d: use a positive number", least)
	}
	if least == 0 {
		least = work.MinSessions
	}
	sc, limit, err := m.workScope(ctx, req.WorkScope)
	if err != nil {
		return out, err
	}
	items, err := work.Friction(ctx, m.Store.Store, sc, least, limit)
	out.Errors = append(out.Errors, InertFriction(items)...)
	return out, err
}

func (o FrictionOutput) Text() string {
	if len(o.Errors) == 0 {
		return "No error was printed by failed commands in that many sessions.\n"
	}
	var b strings.Builder
	b.WriteString("Errors failed commands printed in several sessions, the most first; the error lines and commands are quoted below by number.\n")
	for i, f := range o.Errors {
		fmt.Fprintf(&b, "%d. %d sessions, %d runs · last %s\n", i+1, f.Sessions, f.Runs, f.Last.Ref)
	}
	return b.String() + quoted(func(add func(string)) {
		for i, f := range o.Errors {
			add(fmt.Sprintf("%d. %s", i+1, f.Error))
			add(fmt.Sprintf("   last run: %s", f.Command))
		}
	})
}

// RestoreRequest asks for the text an edit replaced.
type RestoreRequest struct {
	Path    string `json:"path" jsonschema:"the file, relative to its project or absolute"`
	Session string `json:"session,omitempty" jsonschema:"the turn whose edit to read, as SESSION/TURN (default: the newest edit with old text)"`
	Project string `json:"project,omitempty" jsonschema:"only sessions of histories in this directory or below it"`
}

// RestoreOutput is the restore tool's answer: the turn and its edits of
// the file, each with the text it replaced (inert), at most MaxEditText
// characters of each.
type RestoreOutput struct {
	Ref   string        `json:"ref"`
	File  string        `json:"file"`
	Edits []RestoreEdit `json:"edits"`
}

// RestoreEdit is one edit of a restore.
type RestoreEdit struct {
	Old     string `json:"old"`
	New     string `json:"new"`
	Whole   bool   `json:"whole,omitempty"`
	Clipped bool   `json:"clipped,omitempty"`
}

// Restore answers with the text the newest (or the named turn's) edit of
// a file replaced. It writes nothing: the agent decides what to do with it.
func (m *Memory) Restore(ctx context.Context, req RestoreRequest) (RestoreOutput, error) {
	if strings.TrimSpace(req.Path) == "" {
		return RestoreOutput{}, badRequest("path is empty: name the file, as in store/query.go")
	}
	sc, _, err := m.workScope(ctx, WorkScope{Project: req.Project})
	if err != nil {
		return RestoreOutput{}, err
	}
	var session string
	var turn *int
	if strings.TrimSpace(req.Session) != "" {
		if session, turn, err = ParseTurnRef(req.Session); err != nil {
			return RestoreOutput{}, badRequest("session: %v", err)
		}
		if session, err = digest.ResolveSession(ctx, m.Store.Store, session); err != nil {
			return RestoreOutput{}, fmt.Errorf("%w: %v", ErrNotFound, err)
		}
	}
	r, err := work.Restore(ctx, m.Store.Store, sc, req.Path, session, turn)
	if errors.Is(err, work.ErrNoEdit) {
		return RestoreOutput{}, fmt.Errorf("%w: %s: %v", ErrNotFound, quote.Line(req.Path), err)
	}
	if err != nil {
		return RestoreOutput{}, err
	}
	out := RestoreOutput{Ref: quote.Line(r.Ref), File: quote.Line(r.File), Edits: []RestoreEdit{}}
	for _, e := range r.Edits {
		out.Edits = append(out.Edits, RestoreEdit{Old: quote.Text(e.Old), New: quote.Text(e.New), Whole: e.Whole, Clipped: e.Clipped})
	}
	return out, nil
}

func (o RestoreOutput) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "The edits %s made to the file, each with the text it replaced (old) and wrote (new), quoted below by number. A clipped text lost its middle and cannot be put back; a whole-file write recorded no old text.\n", o.Ref)
	return b.String() + quoted(func(add func(string)) {
		add("file: " + o.File)
		for i, e := range o.Edits {
			state := ""
			switch {
			case e.Clipped:
				state = " (clipped)"
			case e.Whole:
				state = " (whole file written)"
			}
			add(fmt.Sprintf("%d.%s old:\n%s\n%d. new:\n%s", i+1, state, e.Old, i+1, e.New))
		}
	})
}
