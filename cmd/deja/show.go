package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/deja-dev/deja/memory"
)

type showOptions struct {
	session string
	turn    int // -2: every turn
	json    bool
}

// allTurns marks a show of the whole session (turn -1 is a real turn: the
// answer before a session's first question).
const allTurns = -2

func newShowCmd(io *IO) *cobra.Command {
	var opts showOptions
	cmd := &cobra.Command{
		Use:   "show SESSION[/TURN]",
		Short: "Print a session, or one turn of it, as Markdown",
		Long: `Print an indexed session as Markdown: each turn's question, answer, files
and commands. SESSION/TURN prints one turn, as 'deja recall' names it.`,
		Example: `  deja show aider-0123456789ab-20260717T090000
  deja show aider-0123456789ab-20260717T090000/2 --json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.session, opts.turn = args[0], allTurns
			if i := strings.LastIndexByte(args[0], '/'); i >= 0 {
				n, err := strconv.Atoi(args[0][i+1:])
				if err != nil {
					return fmt.Errorf("%q: the turn after / must be a number, as in SESSION/2", args[0])
				}
				opts.session, opts.turn = args[0][:i], n
			}
			return runShow(cmd, io, opts)
		},
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print JSON for scripts and agents")
	return cmd
}

type turnJSON struct {
	Turn      int      `json:"turn"`
	Line      int      `json:"line"`
	User      string   `json:"user"`
	Assistant string   `json:"assistant"`
	Files     []string `json:"files"`
	Commands  []string `json:"commands"`
}

func runShow(cmd *cobra.Command, io *IO, opts showOptions) error {
	ctx := cmd.Context()
	cfg, err := loadConfig(cmd, nil)
	if err != nil {
		return err
	}
	store, err := openStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer store.Close()
	id, err := store.ResolveSession(ctx, opts.session)
	if err != nil {
		return exitError{code: 1, msg: err.Error()}
	}
	d, err := store.Session(ctx, id)
	if errors.Is(err, memory.ErrNoSession) {
		return exitError{code: 1, msg: err.Error()}
	}
	if err != nil {
		return err
	}
	turns := d.Turns
	if opts.turn != allTurns {
		turns = nil
		for _, t := range d.Turns {
			if t.Turn == opts.turn {
				turns = append(turns, t)
			}
		}
		if len(turns) == 0 {
			return exitError{code: 1, msg: fmt.Sprintf("session %s has no turn %d: it has turns 0 to %d", d.ID, opts.turn, max(0, len(d.Turns)-1))}
		}
	}
	if opts.json {
		out := struct {
			sessionInfoJSON
			Header string     `json:"header"`
			Turns  []turnJSON `json:"turns"`
		}{sessionInfoJSON: sessionJSONOf(d.SessionInfo), Header: d.Header, Turns: []turnJSON{}}
		for _, t := range turns {
			out.Turns = append(out.Turns, turnJSON{t.Turn, t.Line, t.User, t.Assistant, nonNil(t.Files), nonNil(t.Commands)})
		}
		enc := json.NewEncoder(io.Out)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	w := io.Out
	when := "start unknown"
	if !d.Started.IsZero() {
		when = d.Started.Format(time.RFC3339)
	}
	fmt.Fprintf(w, "# %s\n\n", d.ID)
	fmt.Fprintf(w, "Started %s · %s", when, d.History)
	if !d.Present {
		fmt.Fprint(w, " (the session has left this file; deja kept it)")
	}
	fmt.Fprint(w, "\n")
	for _, t := range turns {
		fmt.Fprintf(w, "\n## Turn %d (line %d)\n\n", t.Turn, t.Line)
		if t.User != "" {
			fmt.Fprintf(w, "**You:** %s\n\n", t.User)
		}
		if t.Assistant != "" {
			fmt.Fprintf(w, "%s\n\n", t.Assistant)
		}
		for _, f := range t.Files {
			fmt.Fprintf(w, "> file: %s\n", f)
		}
		for _, c := range t.Commands {
			fmt.Fprintf(w, "> ran: %s\n", c)
		}
	}
	return nil
}
