package main

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/deja-dev/deja/internal/words"
	"github.com/deja-dev/deja/memory/digest"
	"github.com/deja-dev/deja/memory/recall"
	"github.com/deja-dev/deja/quote"
	"github.com/deja-dev/deja/serve"
)

type sessionsOptions struct {
	json      bool
	project   string
	limit     int
	all       bool
	harness   string
	subagents bool
}

func newSessionsCmd(io *IO) *cobra.Command {
	var opts sessionsOptions
	cmd := &cobra.Command{
		Use:   "sessions",
		Short: "List the indexed sessions, newest first",
		Long: `List the sessions in deja's store, newest first: ID, start time, number of
turns, project and the first question. Sessions that left their history file
are marked "gone" (deja keeps them; 'deja forget' drops them).

It lists the newest 20 (--limit) and says how many more there are.
Sessions that hold no turn (the agent was started and quit before anything
was asked) are left out and counted; --all lists them too. The count of
sessions is the one 'deja status' and 'deja index' report.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runSessions(cmd, io, opts)
		},
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print JSON for scripts and agents")
	cmd.Flags().StringVar(&opts.project, "project", "", "only sessions of histories in DIR or below it")
	cmd.Flags().IntVar(&opts.limit, "limit", serve.DefaultSessions, "show at most N sessions (0: all)")
	cmd.Flags().BoolVar(&opts.all, "all", false, "also list the sessions that hold no turn")
	addHarnessFlags(cmd, &opts.harness, &opts.subagents)
	return cmd
}

func runSessions(cmd *cobra.Command, io *IO, opts sessionsOptions) error {
	ctx := cmd.Context()
	sc := recall.Scope{Harness: opts.harness, Subagents: opts.subagents}
	if err := checkHarness(sc.Harness); err != nil {
		return err
	}
	var err error
	if sc.Project, err = projectFlag(opts.project); err != nil {
		return err
	}
	_, sto, err := openConfigured(cmd)
	if err != nil {
		return err
	}
	defer sto.Close()
	if err := checkScope(ctx, sto, sc); err != nil {
		return err
	}
	if opts.limit < 0 {
		return exitError{code: 2, msg: fmt.Sprintf("--limit %d: use a positive number, or 0 for every session", opts.limit)}
	}
	l, err := digest.ListSessions(ctx, sto, sc, opts.limit, opts.all)
	if err != nil {
		return err
	}
	if opts.json {
		enc := json.NewEncoder(io.Out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(serve.NewSessionsOutput(l, opts.all)); err != nil {
			return err
		}
		if len(l.Sessions) == 0 {
			return errNothingFound
		}
		return nil
	}
	if len(l.Sessions) == 0 {
		st, err := digest.Status(ctx, sto)
		if err != nil {
			return err
		}
		switch {
		case st.Sessions+st.Empty == 0:
			fmt.Fprintln(io.Out, "no sessions indexed: run 'deja index' (or 'deja index PATH')")
		case l.Empty > 0:
			fmt.Fprintf(io.Out, "no session here holds a turn; %d hold none (started and quit): --all lists them\n", l.Empty)
		default:
			fmt.Fprintf(io.Out, "no indexed session matches these filters (%s indexed): 'deja sessions' without them lists them\n", words.Count(st.Sessions, "session"))
		}
		return errNothingFound
	}
	rows := [][]string{{"SESSION", "HARNESS", "STARTED", "TURNS", "PROJECT", "FIRST QUESTION"}}
	for _, s := range l.Sessions {
		when := "-"
		if !s.Started.IsZero() {
			when = s.Started.Format("2006-01-02 15:04")
		}
		project := quote.Line(homeShort(s.Project))
		if !s.Present {
			project += " (gone)"
		}
		h := quote.Line(s.Harness)
		if s.Subagent {
			h += " (subagent)"
		}
		rows = append(rows, []string{quote.Line(s.ID), h, when, strconv.Itoa(s.Turns), project, oneLine(s.First, 60)})
	}
	// On a terminal the table fits its width: the first question gives
	// way, then the start of the project path (its end says most).
	fitTable(rows, io.Width, 4)
	tw := tabwriter.NewWriter(io.Out, 0, 0, 2, ' ', 0)
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if more := l.More(); more > 0 {
		fmt.Fprintf(io.Out, "… %d more of %d sessions: --limit 0 lists every one, --project DIR narrows\n", more, l.Total)
	}
	if l.Empty > 0 && !opts.all {
		if l.Empty == 1 {
			fmt.Fprintln(io.Out, "(1 session that holds no turn is not listed: --all lists it)")
		} else {
			fmt.Fprintf(io.Out, "(%d sessions that hold no turn are not listed: --all lists them)\n", l.Empty)
		}
	}
	return nil
}
