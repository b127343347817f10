package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/deja-dev/deja/memory"
	"github.com/deja-dev/deja/serve"
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

func runShow(cmd *cobra.Command, io *IO, opts showOptions) error {
	ctx := cmd.Context()
	_, store, err := openConfigured(cmd)
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
	var turn *int
	if opts.turn != allTurns {
		turn = &opts.turn
	}
	out := serve.NewShowOutput(d, turn)
	if turn != nil && len(out.Turns) == 0 {
		return exitError{code: 1, msg: fmt.Sprintf("session %s has no turn %d: it has turns 0 to %d", d.ID, opts.turn, max(0, len(d.Turns)-1))}
	}
	if opts.json {
		enc := json.NewEncoder(io.Out)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	fmt.Fprint(io.Out, out.Markdown())
	return nil
}
