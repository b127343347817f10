package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/deja-dev/deja/config"
	"github.com/deja-dev/deja/harness/note"
	"github.com/deja-dev/deja/memory/digest"
	"github.com/deja-dev/deja/memory/index"
	"github.com/deja-dev/deja/memory/store"
	"github.com/deja-dev/deja/quote"
	"github.com/deja-dev/deja/serve"
)

// noteWait is how long keeping a note waits for another deja writing the
// store (an index run) before it gives up.
const noteWait = 30 * time.Second

// keepNote adds a note to the configured store, embedded as indexing
// would, and returns its session ID.
func keepNote(ctx context.Context, io *IO, cfg config.Config, l note.Line) (string, error) {
	sto, err := openStore(ctx, cfg)
	if err != nil {
		return "", err
	}
	defer sto.Close()
	opts := index.Options{Budget: cfg.Chunk.Budget, Lock: store.LockOptions{Wait: noteWait}}
	if emb, _ := selectEmbedder(ctx, io, cfg); emb != nil {
		opts.Embedder = emb
	}
	return index.AddNote(ctx, sto, opts, l)
}

type noteOutput struct {
	ID      string   `json:"id"`
	Project string   `json:"project,omitempty"`
	Tags    []string `json:"tags,omitempty"`
	Target  string   `json:"target,omitempty"`
	Verdict string   `json:"verdict,omitempty"`
}

func newRememberCmd(io *IO) *cobra.Command {
	var project string
	var tags []string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "remember TEXT",
		Short: "Keep a note that recall finds, ahead of past turns as relevant",
		Long: `Keep TEXT as a note: a finding, a decision or a convention worth finding again
("orders queries always take the tenant predicate"). Recall finds it like a
past turn, and puts it ahead of a turn about as relevant. --project ties it
to a project (recall --project finds it there; a team shares it with that
project's turns), --tag labels it (repeatable). The note is redacted like a
turn before it is kept; 'deja forget NOTE' drops it.`,
		Example: `  deja remember "orders queries always take the tenant predicate" --project ~/src/shop --tag db
  deja remember --json "deploys go through make release, never docker push"`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := loadConfig(cmd, nil)
			if err != nil {
				return err
			}
			dir, err := projectFlag(project)
			if err != nil {
				return exitError{code: 2, msg: err.Error()}
			}
			l := note.Line{Text: strings.Join(args, " "), Project: dir, Tags: tags}
			id, err := keepNote(cmd.Context(), io, cfg, l)
			if err != nil {
				return exitError{code: 2, msg: err.Error()}
			}
			if asJSON {
				return printJSON(io, noteOutput{ID: id, Project: dir, Tags: tags}, true)
			}
			fmt.Fprintf(io.Out, "remembered %s: recall finds it; 'deja forget %s' drops it\n", id, id)
			return nil
		},
	}
	cmd.Flags().StringVar(&project, "project", "", "the project the note is about (a directory)")
	cmd.Flags().StringArrayVar(&tags, "tag", nil, "a label for the note (repeatable)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object for scripts and agents")
	return cmd
}

func newMarkCmd(io *IO) *cobra.Command {
	var why string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "mark SESSION[/TURN] accepted|rejected",
		Short: "Mark a past session or turn's approach accepted or rejected, and why",
		Long: `Mark what a past session (or one turn of it) did as accepted or rejected, with
--note saying why. Every later recall result from it says so, to people and
to agents: an agent recalling a rejected approach is told it was tried and
why it was rejected. A mark is a note (it is recalled too); 'deja forget
NOTE' takes it back, and a newer mark of the same session or turn wins.`,
		Example: `  deja mark claude-1f2e…/4 rejected --note "the retry loop hid the real error; fix the timeout instead"
  deja mark 20260717T090000 accepted --note "this is how we migrate: expand, backfill, contract"`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			verdict := args[1]
			if verdict != note.Accepted && verdict != note.Rejected {
				return exitError{code: 2, msg: fmt.Sprintf("%q: mark a session accepted or rejected", verdict)}
			}
			session, turn, err := serve.ParseTurnRef(args[0])
			if err != nil {
				return exitError{code: 2, msg: err.Error()}
			}
			cfg, sto, err := openConfigured(cmd)
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			if session, err = digest.ResolveSession(ctx, sto, session); err != nil {
				sto.Close()
				return exitError{code: 1, msg: err.Error()}
			}
			info, err := digest.Session(ctx, sto, session)
			if err == nil && turn != nil && !hasTurn(info, *turn) {
				err = fmt.Errorf("session %s has no turn %d: 'deja show %s' lists its turns", quote.Line(session), *turn, quote.Line(session))
			}
			sto.Close()
			if err != nil {
				return exitError{code: 1, msg: err.Error()}
			}
			target := session
			if turn != nil {
				target = store.TurnRef(session, *turn)
			}
			l := note.Line{Text: why, Project: info.Project, Mark: &note.Mark{Target: target, Verdict: verdict}}
			id, err := keepNote(ctx, io, cfg, l)
			if err != nil {
				return exitError{code: 2, msg: err.Error()}
			}
			if asJSON {
				return printJSON(io, noteOutput{ID: id, Project: info.Project, Target: target, Verdict: verdict}, true)
			}
			fmt.Fprintf(io.Out, "marked %s %s (%s): recall says so of its results; 'deja forget %s' takes it back\n", quote.Line(target), verdict, id, id)
			return nil
		},
	}
	cmd.Flags().StringVar(&why, "note", "", "why: what was wrong with it, or what makes it the way to do it")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object for scripts and agents")
	return cmd
}

func hasTurn(d *digest.SessionDetail, turn int) bool {
	for _, t := range d.Turns {
		if t.Turn == turn {
			return true
		}
	}
	return false
}
