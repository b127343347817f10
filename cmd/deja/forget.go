package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/deja-dev/deja/memory/digest"
	"github.com/deja-dev/deja/memory/store"
	"github.com/deja-dev/deja/quote"
)

type forgetOptions struct {
	ids  []string
	undo bool
	wait time.Duration
	json bool
}

// forgetOutput is 'deja forget --json': the sessions forgotten (or, with
// --undo, let back) and what could not be scrubbed.
type forgetOutput struct {
	Forgotten []string `json:"forgotten,omitempty"`
	Restored  []string `json:"restored,omitempty"`
	Warning   string   `json:"warning,omitempty"`
}

func printForgetJSON(io *IO, out forgetOutput) error {
	enc := json.NewEncoder(io.Out)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

func newForgetCmd(io *IO) *cobra.Command {
	var opts forgetOptions
	cmd := &cobra.Command{
		Use:   "forget SESSION...",
		Short: "Remove sessions from every index and keep them out",
		Long: `Remove sessions from deja's store — their turns, keyword entries and
vectors — and leave a tombstone, so no later 'deja index' brings them back
even though the history file still holds them. --undo lifts the tombstone:
the session comes back on the next 'deja index' if its file still holds it.
SESSION is a full ID or a part only one session has, such as its time stamp.
While a 'deja index' writes the store, forget waits for it (--wait).`,
		Example: `  deja forget aider-0123456789ab-20260717T090000
  deja forget --undo aider-0123456789ab-20260717T090000 && deja index`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.ids = args
			return runForget(cmd, io, opts)
		},
	}
	cmd.Flags().BoolVar(&opts.undo, "undo", false, "lift the tombstones; the next 'deja index' reads the sessions again")
	cmd.Flags().DurationVar(&opts.wait, "wait", defaultLockWait, "how long to wait while another deja writes the store (0: fail at once)")
	cmd.Flags().BoolVar(&opts.json, "json", false, "print the sessions forgotten (or let back) as one JSON object")
	return cmd
}

func runForget(cmd *cobra.Command, io *IO, opts forgetOptions) error {
	ctx := cmd.Context()
	_, sto, err := openConfigured(cmd)
	if err != nil {
		return err
	}
	defer sto.Close()
	lock := store.LockOptions{Wait: opts.wait, Waiting: func(pid int) {
		fmt.Fprintf(io.Err, "deja: another deja (pid %d) is writing the store; waiting up to %s\n", pid, opts.wait)
	}}
	var ids []string
	for _, ref := range opts.ids {
		id, err := digest.ResolveSession(ctx, sto, ref)
		if err != nil {
			return exitError{code: 1, msg: err.Error()}
		}
		ids = append(ids, id)
	}
	if opts.undo {
		from, err := sto.Unforget(ctx, ids, lock)
		if err != nil {
			return err
		}
		if opts.json {
			return printForgetJSON(io, forgetOutput{Restored: ids})
		}
		for _, id := range ids {
			fmt.Fprintf(io.Out, "%s: no longer forgotten; 'deja index' reads it again from %s\n", quote.Line(id), homeShort(from[id]))
		}
		return nil
	}
	err = sto.Forget(ctx, ids, lock)
	if errors.Is(err, store.ErrNoSession) {
		return exitError{code: 1, msg: err.Error()}
	}
	if err != nil && !errors.Is(err, store.ErrNotScrubbed) {
		return err
	}
	if opts.json {
		out := forgetOutput{Forgotten: ids}
		if err != nil {
			out.Warning = err.Error()
		}
		if jerr := printForgetJSON(io, out); jerr != nil {
			return jerr
		}
	} else {
		for _, id := range ids {
			fmt.Fprintf(io.Out, "forgot %[1]s ('deja forget --undo %[1]s' lets it come back)\n", quote.Line(id))
		}
	}
	if err != nil {
		// Committed: the sessions are out of recall; say what is left.
		fmt.Fprintln(io.Err, "deja: warning:", quote.Line(err.Error()))
	}
	return nil
}
