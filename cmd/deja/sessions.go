package main

import (
	"encoding/json"
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/deja-dev/deja/memory"
	"github.com/deja-dev/deja/serve"
)

type sessionsOptions struct {
	json      bool
	project   string
	limit     int
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
are marked "gone" (deja keeps them; 'deja forget' drops them).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runSessions(cmd, io, opts)
		},
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print JSON for scripts and agents")
	cmd.Flags().StringVar(&opts.project, "project", "", "only sessions of histories in DIR or below it")
	cmd.Flags().IntVar(&opts.limit, "limit", 0, "show at most N sessions (0: all)")
	addHarnessFlags(cmd, &opts.harness, &opts.subagents)
	return cmd
}

func runSessions(cmd *cobra.Command, io *IO, opts sessionsOptions) error {
	ctx := cmd.Context()
	sc := memory.Scope{Harness: opts.harness, Subagents: opts.subagents}
	if err := checkHarness(sc.Harness); err != nil {
		return err
	}
	if opts.project != "" {
		var err error
		if sc.Project, err = resolveDir(opts.project); err != nil {
			return fmt.Errorf("--project: %w", err)
		}
	}
	_, store, err := openConfigured(cmd)
	if err != nil {
		return err
	}
	defer store.Close()
	list, err := store.Sessions(ctx, sc)
	if err != nil {
		return err
	}
	if opts.limit > 0 && len(list) > opts.limit {
		list = list[:opts.limit]
	}
	if opts.json {
		out := serve.SessionsOutput{Sessions: []serve.SessionInfo{}}
		for _, s := range list {
			out.Sessions = append(out.Sessions, serve.NewSessionInfo(s))
		}
		enc := json.NewEncoder(io.Out)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	if len(list) == 0 {
		fmt.Fprintln(io.Out, "no sessions indexed: run 'deja index' (or 'deja index PATH')")
		return nil
	}
	tw := tabwriter.NewWriter(io.Out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SESSION\tHARNESS\tSTARTED\tTURNS\tPROJECT\tFIRST QUESTION")
	for _, s := range list {
		when := "-"
		if !s.Started.IsZero() {
			when = s.Started.Format("2006-01-02 15:04")
		}
		project := homeShort(s.Project)
		if !s.Present {
			project += " (gone)"
		}
		h := s.Harness
		if s.Subagent {
			h += " (subagent)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\n", s.ID, h, when, s.Turns, project, oneLine(s.First, 60))
	}
	return tw.Flush()
}
