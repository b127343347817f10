package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/deja-dev/deja/chunk"
	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/internal/words"
	"github.com/deja-dev/deja/memory/digest"
	"github.com/deja-dev/deja/memory/recall"
	"github.com/deja-dev/deja/memory/store"
	"github.com/deja-dev/deja/memory/work"
	"github.com/deja-dev/deja/quote"
	"github.com/deja-dev/deja/serve"
)

// workOptions are the flags every question about work takes.
type workOptions struct {
	json      bool
	project   string
	since     string
	harness   string
	subagents bool
	limit     int
}

func addWorkFlags(cmd *cobra.Command, opts *workOptions, limit int) {
	f := cmd.Flags()
	f.BoolVar(&opts.json, "json", false, "print one JSON object for scripts and agents")
	f.StringVar(&opts.project, "project", "", "only sessions of histories in DIR or below it")
	f.StringVar(&opts.since, "since", "", "only sessions started at or after: 2026-07-17, an RFC 3339 time, or an age (36h, 7d, 2w)")
	f.IntVar(&opts.limit, "limit", limit, "show at most N")
	addHarnessFlags(cmd, &opts.harness, &opts.subagents)
}

// openWork checks the flags, opens the store and returns the scope they
// ask for; the caller closes the store.
func openWork(cmd *cobra.Command, opts workOptions) (*store.Store, recall.Scope, error) {
	sc := recall.Scope{Harness: opts.harness, Subagents: opts.subagents}
	if err := checkHarness(sc.Harness); err != nil {
		return nil, sc, err
	}
	if opts.limit <= 0 {
		return nil, sc, exitError{code: 2, msg: fmt.Sprintf("--limit %d: use a positive number", opts.limit)}
	}
	var err error
	if sc.Since, err = recall.ParseWhen(opts.since, time.Now(), false); err != nil {
		return nil, sc, exitError{code: 2, msg: "--since: " + err.Error()}
	}
	if sc.Project, err = projectFlag(opts.project); err != nil {
		return nil, sc, exitError{code: 2, msg: err.Error()}
	}
	_, sto, err := openConfigured(cmd)
	if err != nil {
		return nil, sc, err
	}
	if err := checkScope(cmd.Context(), sto, sc); err != nil {
		sto.Close()
		return nil, sc, err
	}
	return sto, sc, nil
}

// printJSON writes v indented, and ends with exit 1 when found is false.
func printJSON(io *IO, v any, found bool) error {
	enc := json.NewEncoder(io.Out)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false) // commands hold && and < as typed
	if err := enc.Encode(v); err != nil {
		return err
	}
	if !found {
		return errNothingFound
	}
	return nil
}

// turnLine is how a work answer names a turn for people: its reference,
// day, harness and project, each made inert.
func turnLine(t work.Turn) string {
	when := "-"
	if !t.Time.IsZero() {
		when = t.Time.Local().Format("2006-01-02 15:04")
	}
	return fmt.Sprintf("%s  %s  %s  %s", quote.Line(t.Ref), when, quote.Line(t.Harness), homeShort(t.Project))
}

// outcomeWord is a status as people read it.
func outcomeWord(st harness.Status, exit *int) string {
	switch {
	case exit != nil && *exit != 0:
		return "failed, exit " + strconv.Itoa(*exit)
	case st == harness.Failed:
		return "failed"
	case st == harness.Succeeded:
		return "worked"
	}
	return "outcome not recorded"
}

func newBlameCmd(io *IO) *cobra.Command {
	var opts workOptions
	cmd := &cobra.Command{
		Use:   "blame PATH",
		Short: "Which past turns edited a file, newest first, and how each went",
		Long: `List the past turns that edited PATH, newest first, each with the question that
led to the edit and its outcome (whether the agent's edit was applied, where
its harness records that, and the lines it added and removed); then the
turns that only added or read the file, then those that named it in their
words. PATH is as you would type it in the project: relative, or absolute.

'deja restore PATH --turn SESSION/TURN' prints the text an edit replaced;
'deja show SESSION/TURN' the whole turn.`,
		Example: `  deja blame store/query.go
  deja blame --project ~/src/shop --since 30d internal/db/query.go
  deja blame --json app.py | jq '.turns[] | select(.how == "edited") | .ref'`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			sto, sc, err := openWork(cmd, opts)
			if err != nil {
				return err
			}
			defer sto.Close()
			items, err := work.Blame(cmd.Context(), sto, sc, args[0], opts.limit)
			if err != nil {
				return err
			}
			if opts.json {
				return printJSON(io, struct {
					Path  string           `json:"path"`
					Turns []work.BlameItem `json:"turns"`
				}{args[0], serve.InertBlame(items)}, len(items) > 0)
			}
			if len(items) == 0 {
				fmt.Fprintf(io.Out, "no indexed turn edited, read or named %s\n", quote.Line(args[0]))
				return errNothingFound
			}
			for _, it := range items {
				how := it.How
				if it.How == work.Edited {
					how += " (" + outcomeWord(it.Outcome, nil) + ")"
					if it.Edits > 0 {
						how += fmt.Sprintf(" +%d -%d", it.Added, it.Removed)
					}
					if it.ChangedSince {
						how += ", changed since"
					}
				}
				fmt.Fprintf(io.Out, "%s  %s  %s\n", turnLine(it.Turn), how, quote.Line(it.File))
				if it.Question != "" {
					fmt.Fprintf(io.Out, "    %s\n", oneLine(it.Question, 100))
				}
			}
			return nil
		},
	}
	addWorkFlags(cmd, &opts, 20)
	return cmd
}

func newHowCmd(io *IO) *cobra.Command {
	var opts workOptions
	cmd := &cobra.Command{
		Use:   "how TEXT",
		Short: "How this machine ran a command before, and how often that worked",
		Long: `List the commands past sessions ran whose line holds TEXT (case aside),
grouped by invocation ("go test", "docker build"), each command line with
how many runs worked and failed (by exit status, or the harness's own mark
where it records no exit status), the newest one that worked first.
Runs whose harness recorded no outcome are counted as unknown.`,
		Example: `  deja how "go test"
  deja how docker build --project ~/src/shop
  deja how --json pytest | jq '.groups[0].commands[0].command'`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			sto, sc, err := openWork(cmd, opts)
			if err != nil {
				return err
			}
			defer sto.Close()
			text := strings.Join(args, " ")
			groups, err := work.How(cmd.Context(), sto, sc, text, opts.limit)
			if err != nil {
				return err
			}
			if opts.json {
				return printJSON(io, struct {
					Text   string          `json:"text"`
					Groups []work.HowGroup `json:"groups"`
				}{text, serve.InertHow(groups)}, len(groups) > 0)
			}
			if len(groups) == 0 {
				fmt.Fprintf(io.Out, "no indexed turn ran a command holding %s\n", quote.Line(text))
				return errNothingFound
			}
			for i, g := range groups {
				if i > 0 {
					fmt.Fprintln(io.Out)
				}
				fmt.Fprintf(io.Out, "%s: %s\n", quote.Line(g.Invocation), tallyLine(g.Tally))
				for _, c := range g.Commands {
					fmt.Fprintf(io.Out, "  %s\n", oneLine(c.Command, 120))
					last := "last run " + quote.Line(c.Last.Ref) + " (" + outcomeWord(c.LastStatus, c.LastExit) + ")"
					if c.LastWorked != nil && c.LastWorked.Ref != c.Last.Ref {
						last += ", last worked " + quote.Line(c.LastWorked.Ref)
					}
					fmt.Fprintf(io.Out, "      %s; %s\n", tallyLine(c.Tally), last)
				}
			}
			return nil
		},
	}
	addWorkFlags(cmd, &opts, 10)
	return cmd
}

func tallyLine(t work.Tally) string {
	s := fmt.Sprintf("%s, %d worked, %d failed", words.Count(t.Runs, "run"), t.Worked, t.Failed)
	if t.Unknown > 0 {
		s += fmt.Sprintf(", %d not recorded", t.Unknown)
	}
	return s
}

func newFixCmd(io *IO) *cobra.Command {
	var opts workOptions
	cmd := &cobra.Command{
		Use:   "fix ERROR",
		Short: "What was run after this error before, until it stopped",
		Long: `Find the past sessions where a command printed ERROR (case and spacing aside),
and follow each: the commands run after it and the files edited, up to the
run of a command that had printed the error which then worked without it
("fixed"). Sessions where the error stopped come first, newest first.
Only commands whose harness recorded their output can be found.`,
		Example: `  deja fix "undefined: tenantID"
  deja fix "ECONNREFUSED 127.0.0.1:5432" --since 60d
  deja fix --json "ModuleNotFoundError: No module named 'yaml'"`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			sto, sc, err := openWork(cmd, opts)
			if err != nil {
				return err
			}
			defer sto.Close()
			text := strings.Join(args, " ")
			items, err := work.Fix(cmd.Context(), sto, sc, text, opts.limit)
			if err != nil {
				return err
			}
			if opts.json {
				return printJSON(io, struct {
					Error    string         `json:"error"`
					Sessions []work.FixItem `json:"sessions"`
				}{text, serve.InertFix(items)}, len(items) > 0)
			}
			if len(items) == 0 {
				fmt.Fprintf(io.Out, "no recorded command output holds %s\n", quote.Line(text))
				return errNothingFound
			}
			for i, it := range items {
				state := "not fixed in this session"
				if it.Fixed {
					state = "fixed"
				}
				fmt.Fprintf(io.Out, "%d. %s  %s\n", i+1, turnLine(it.Turn), state)
				fmt.Fprintf(io.Out, "   error:  %s\n", oneLine(it.Line, 120))
				fmt.Fprintf(io.Out, "   from:   %s (%s)\n", oneLine(it.Command, 100), outcomeWord(harness.Failed, it.Exit))
				for _, s := range it.Next {
					fmt.Fprintf(io.Out, "   then:   %s (%s)\n", oneLine(s.Command, 100), outcomeWord(s.Status, s.Exit))
				}
				if len(it.Edited) > 0 {
					fmt.Fprintf(io.Out, "   edited: %s\n", oneLine(strings.Join(it.Edited, ", "), 120))
				}
				if it.Confirmed != nil {
					fmt.Fprintf(io.Out, "   worked: %s at %s\n", oneLine(it.Confirmed.Command, 100), quote.Line(it.Confirmed.Ref))
				}
			}
			return nil
		},
	}
	addWorkFlags(cmd, &opts, 5)
	return cmd
}

func newFrictionCmd(io *IO) *cobra.Command {
	var opts workOptions
	var least int
	cmd := &cobra.Command{
		Use:   "friction",
		Short: "Errors that failed commands hit in three or more sessions",
		Long: `List the errors failed commands printed in several sessions (three, or
--sessions N), the most sessions first, with the harnesses and projects they
hit and the newest run. An error is its output's first line that names an
error, with numbers, hex strings and directories written as N, H and …/ so
the same error in another place or run counts once.`,
		Example: `  deja friction
  deja friction --project ~/src/shop --since 30d
  deja friction --json --sessions 5`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if least < 1 {
				return exitError{code: 2, msg: fmt.Sprintf("--sessions %d: use a positive number", least)}
			}
			sto, sc, err := openWork(cmd, opts)
			if err != nil {
				return err
			}
			defer sto.Close()
			items, err := work.Friction(cmd.Context(), sto, sc, least, opts.limit)
			if err != nil {
				return err
			}
			if opts.json {
				return printJSON(io, struct {
					Errors []work.FrictionItem `json:"errors"`
				}{serve.InertFriction(items)}, len(items) > 0)
			}
			if len(items) == 0 {
				fmt.Fprintf(io.Out, "no error was printed by failed commands in %d or more sessions\n", least)
				return errNothingFound
			}
			for i, f := range items {
				fmt.Fprintf(io.Out, "%d. %s\n", i+1, oneLine(f.Error, 140))
				var projects []string
				for _, p := range f.Projects {
					projects = append(projects, homeShort(p))
				}
				fmt.Fprintf(io.Out, "   %s, %s · %s · %s\n", words.Count(f.Sessions, "session"), words.Count(f.Runs, "run"),
					quote.Line(strings.Join(f.Harnesses, ", ")), oneLine(strings.Join(projects, ", "), 100))
				fmt.Fprintf(io.Out, "   last: %s (%s)\n", quote.Line(f.Last.Ref), oneLine(f.Command, 80))
			}
			return nil
		},
	}
	addWorkFlags(cmd, &opts, 20)
	cmd.Flags().IntVar(&least, "sessions", work.MinSessions, "only errors seen in at least N sessions")
	return cmd
}

func newRestoreCmd(io *IO) *cobra.Command {
	var opts workOptions
	var turnRef, out string
	var edit int
	cmd := &cobra.Command{
		Use:   "restore PATH",
		Short: "Print the text a past edit of a file replaced",
		Long: `Print the text the newest recorded edit of PATH replaced (or the edit of
--turn SESSION/TURN), as the agent's harness recorded it, to stdout, or with
--out FILE into a new file. It never writes over a file: --out refuses a
path that exists. A turn that made several edits to the file needs --edit N
(the list says which). An edit whose old text was too long to keep whole,
or that wrote the whole file, cannot be restored; the message says so.`,
		Example: `  deja restore store/query.go
  deja restore store/query.go --turn claude-1f2e…/4 --out /tmp/query.go.old
  deja restore --json app.py | jq -r '.edits[0].old'`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.limit = 1
			sto, sc, err := openWork(cmd, opts)
			if err != nil {
				return err
			}
			defer sto.Close()
			var session string
			var turn *int
			if turnRef != "" {
				if session, turn, err = serve.ParseTurnRef(turnRef); err != nil {
					return exitError{code: 2, msg: "--turn: " + err.Error()}
				}
				if session, err = digest.ResolveSession(cmd.Context(), sto, session); err != nil {
					return exitError{code: 1, msg: "--turn: " + err.Error()}
				}
			}
			r, err := work.Restore(cmd.Context(), sto, sc, args[0], session, turn)
			if errors.Is(err, work.ErrNoEdit) {
				if opts.json {
					return printJSON(io, struct {
						Path  string       `json:"path"`
						Edits []chunk.Edit `json:"edits"`
					}{args[0], []chunk.Edit{}}, false)
				}
				return exitError{code: 1, msg: fmt.Sprintf("%s: %v ('deja blame %s' lists the turns that touched it)", quote.Line(args[0]), err, quote.Line(args[0]))}
			}
			if err != nil {
				return err
			}
			if opts.json {
				// The turn and the file are made inert; the texts are the
				// bytes recorded, which is what a script restores.
				r.Turn, r.File = serve.InertTurn(r.Turn), quote.Line(r.File)
				return printJSON(io, r, true)
			}
			chosen, err := pickEdit(r, edit)
			if err != nil {
				return err
			}
			if out != "" {
				f, err := os.OpenFile(out, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
				if err != nil {
					if errors.Is(err, os.ErrExist) {
						return exitError{code: 2, msg: fmt.Sprintf("--out %s: the file exists; restore writes only a new file (name another, or remove it yourself)", out)}
					}
					return exitError{code: 2, msg: "--out: " + err.Error()}
				}
				if _, err := f.WriteString(chosen.Old); err != nil {
					f.Close()
					return err
				}
				if err := f.Close(); err != nil {
					return err
				}
				fmt.Fprintf(io.Err, "wrote %d bytes that %s replaced in %s to %s\n", len(chosen.Old), quote.Line(r.Ref), quote.Line(r.File), out)
				return nil
			}
			text := chosen.Old
			if io.OutTTY {
				// On a terminal the text is shown, not obeyed; piped or
				// redirected it is the bytes recorded.
				text = quote.Text(text)
			}
			fmt.Fprint(io.Out, text)
			if io.OutTTY && !strings.HasSuffix(text, "\n") {
				fmt.Fprintln(io.Out)
			}
			return nil
		},
	}
	addWorkFlags(cmd, &opts, 1)
	cmd.Flags().Lookup("limit").Hidden = true
	cmd.Flags().StringVar(&turnRef, "turn", "", "the turn whose edit to restore, as SESSION/TURN (default: the newest)")
	cmd.Flags().StringVar(&out, "out", "", "write the old text to this new file instead of stdout")
	cmd.Flags().IntVar(&edit, "edit", 0, "which of the turn's edits of the file, from 1, when it made several")
	return cmd
}

// pickEdit is the edit a restore prints: the only one the turn made to
// the file, or the --edit one; an edit without whole old text is refused
// with why.
func pickEdit(r work.Restorable, n int) (chunk.Edit, error) {
	if n == 0 && len(r.Edits) > 1 {
		var b strings.Builder
		fmt.Fprintf(&b, "%s made %d edits to %s: choose one with --edit N:", quote.Line(r.Ref), len(r.Edits), quote.Line(r.File))
		for i, e := range r.Edits {
			fmt.Fprintf(&b, "\n  --edit %d  replaced %d lines with %d: %s", i+1, lineCount(e.Old), lineCount(e.New), oneLine(e.Old, 60))
		}
		return chunk.Edit{}, exitError{code: 2, msg: b.String()}
	}
	if n == 0 {
		n = 1
	}
	if n < 1 || n > len(r.Edits) {
		return chunk.Edit{}, exitError{code: 2, msg: fmt.Sprintf("--edit %d: %s made %d edits to %s", n, quote.Line(r.Ref), len(r.Edits), quote.Line(r.File))}
	}
	e := r.Edits[n-1]
	switch {
	case e.Whole:
		return e, exitError{code: 1, msg: fmt.Sprintf("%s wrote %s whole: its harness did not record what the file held before", quote.Line(r.Ref), quote.Line(r.File))}
	case e.Clipped:
		return e, exitError{code: 1, msg: fmt.Sprintf("the text %s replaced in %s was longer than deja keeps whole (%d bytes), so it cannot be restored", quote.Line(r.Ref), quote.Line(r.File), harness.SpanMax)}
	case e.Old == "":
		return e, exitError{code: 1, msg: fmt.Sprintf("%s's edit %d of %s recorded no old text", quote.Line(r.Ref), n, quote.Line(r.File))}
	}
	return e, nil
}

func lineCount(s string) int {
	if s == "" {
		return 0
	}
	return strings.Count(strings.TrimSuffix(s, "\n"), "\n") + 1
}
