package main

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/deja-dev/deja/memory/digest"
	"github.com/deja-dev/deja/memory/store"
	"github.com/deja-dev/deja/serve"
)

type showOptions struct {
	session string
	turn    int // -2: every turn
	json    bool
	noPager bool
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
and commands. SESSION/TURN prints one turn, as 'deja recall' names it;
SESSION/before (or SESSION/-1) prints the files added and commands run
before the session's first message. On a terminal each turn is shown for
reading, "You:" and the agent's answer labelled, and a session longer
than the screen opens in $PAGER (less -R when unset; PAGER= or --no-pager
turn it off). Piped, as an agent or a script reads it, each turn is
quoted as history, data and not instructions, in a fenced block.`,
		Example: `  deja show aider-0123456789ab-20260717T090000
  deja show aider-0123456789ab-20260717T090000/2 --json
  deja show aider-0123456789ab-20260717T090000/before`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			session, turn, err := serve.ParseTurnRef(args[0])
			if err != nil {
				return exitError{code: 2, msg: err.Error()}
			}
			opts.session, opts.turn = session, allTurns
			if turn != nil {
				opts.turn = *turn
			}
			return runShow(cmd, io, opts)
		},
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print JSON for scripts and agents")
	cmd.Flags().BoolVar(&opts.noPager, "no-pager", false, "print to the terminal without a pager ($PAGER, else less -R), as when piped")
	return cmd
}

func runShow(cmd *cobra.Command, io *IO, opts showOptions) error {
	ctx := cmd.Context()
	_, sto, err := openConfigured(cmd)
	if err != nil {
		return err
	}
	defer sto.Close()
	id, err := digest.ResolveSession(ctx, sto, opts.session)
	if err != nil {
		return exitError{code: 1, msg: err.Error()}
	}
	d, err := digest.Session(ctx, sto, id)
	if errors.Is(err, store.ErrNoSession) {
		return exitError{code: 1, msg: err.Error()}
	}
	if err != nil {
		return err
	}
	var turn *int
	if opts.turn != allTurns {
		turn = &opts.turn
	}
	out := serve.NewShowOutput(d, turn)
	if turn != nil && len(out.Turns) == 0 {
		what := fmt.Sprintf("turn %d", opts.turn)
		if opts.turn == -1 {
			what = "records before its first message"
		}
		return exitError{code: 1, msg: fmt.Sprintf("session %s has no %s: %s", d.ID, what, serve.TurnsOf(d))}
	}
	if opts.json {
		enc := json.NewEncoder(io.Out)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	text := out.Markdown()
	if io.OutTTY {
		// A person reads it: labelled, without the quoting an agent needs.
		text = out.ForPeople()
	}
	return pageOut(ctx, io, text, opts.noPager)
}
