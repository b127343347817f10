package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/deja-dev/deja/aider"
	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/memory"
)

const resumeLong = `Say how to carry on an indexed session's work.

For a Claude Code or Codex session deja prints the agent's own command that
reopens it ('claude --resume ID', 'codex resume ID', run in the session's
project); a subagent's session is not reopened on its own, so deja names the
session that ran it.

deja does not reopen an aider session, and says why: aider has no way to
load one session back. Its only restore is 'aider --restore-chat-history',
which loads the whole history file, every session in it, into the new chat.
deja names that flag and the file, and shows the way it supports instead:
a context file for the project ('deja context') that 'deja aider' hands to
aider with --read.

Exit codes: 0 with the command printed, 3 when deja refuses to resume (every
aider session, and subagents), 1 for an unknown or forgotten session ID.`

// exitRefused is the exit code of a resume deja will not do, so scripts can
// tell it from an ID that names nothing.
const exitRefused = 3

func newResumeCmd(io *IO) *cobra.Command {
	return &cobra.Command{
		Use:     "resume SESSION",
		Short:   "Print the command that reopens a session, or say why there is none",
		Long:    resumeLong,
		Example: `  deja resume aider-0123456789ab-20260717T090000`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runResume(cmd, io, args[0])
		},
	}
}

func runResume(cmd *cobra.Command, io *IO, ref string) error {
	ctx := cmd.Context()
	_, store, err := openConfigured(cmd)
	if err != nil {
		return err
	}
	defer store.Close()
	id, err := store.ResolveSession(ctx, ref)
	if err != nil {
		return exitError{code: 1, msg: err.Error()}
	}
	forgotten, err := store.Forgotten(ctx)
	if err != nil {
		return err
	}
	if slices.Contains(forgotten, id) {
		return exitError{code: 1, msg: fmt.Sprintf("session %s is forgotten: deja keeps nothing of it to resume. "+
			"'deja forget --undo %s' brings it back on the next 'deja index', if its file still holds it", id, id)}
	}
	d, err := store.Session(ctx, id)
	if err != nil {
		return exitError{code: 1, msg: err.Error()}
	}
	if d.Harness != aider.Name {
		return resumeOther(io, d)
	}
	siblings, err := store.Sessions(ctx, memory.Scope{Project: filepath.Dir(d.History)})
	if err != nil {
		return err
	}
	inFile := 0
	for _, s := range siblings {
		if s.History == d.History && s.Present {
			inFile++
		}
	}
	return exitError{code: exitRefused, msg: resumeRefusal(d, inFile)}
}

// resumeRefusal says why deja will not reopen an aider session and what to
// do instead.
func resumeRefusal(d *memory.SessionDetail, inFile int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "will not resume %s: aider can only restore a whole history file, with 'aider --restore-chat-history', "+
		"which loads every session in %s (%s), not this one session.", d.ID, d.History, plural(inFile, "session"))
	if _, err := os.Stat(d.History); err != nil {
		b.WriteString(" That file is gone, too: the flag has nothing to load.")
	} else if !d.Present {
		b.WriteString(" This session has even left that file, so the flag would not bring it back at all.")
	}
	project := filepath.Dir(d.History)
	b.WriteString("\nTo carry on its work instead:\n")
	fmt.Fprintf(&b, "  deja show %s\n      prints what it did, turn by turn\n", d.ID)
	if query := oneLine(d.First, 60); query != "" {
		fmt.Fprintf(&b, "  cd %s && aider --read \"$(deja context %s)\"\n      starts aider with the project's past turns most like it\n", shellQuote(project), shellQuote(query))
	}
	fmt.Fprintf(&b, "  cd %s && deja aider\n      starts aider with the project's most recent turns", shellQuote(project))
	return b.String()
}

// shellQuote quotes s for a POSIX shell when it needs quoting, for the
// commands deja suggests.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./+:@%,=") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// plural writes a count with its noun, as people read it.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// resumeOther prints the command that reopens a session of a harness that
// can reopen its own sessions, or refuses with what to do instead.
func resumeOther(io *IO, d *memory.SessionDetail) error {
	if d.Subagent {
		msg := fmt.Sprintf("will not resume %s: a subagent ran it for another session and %s cannot reopen it on its own.", d.ID, d.Harness)
		if d.Parent != "" {
			msg += fmt.Sprintf("\nThe session that ran it is %s: 'deja resume %s'", d.Parent, d.Parent)
		}
		msg += fmt.Sprintf("\n'deja show %s' prints what it did", d.ID)
		return exitError{code: exitRefused, msg: msg}
	}
	r, _ := knownHarnesses().Lookup(d.Harness).(harness.Resumer)
	cmd := ""
	if r != nil {
		cmd = r.ResumeCommand(d.ID, d.Project)
	}
	if cmd == "" {
		return exitError{code: exitRefused, msg: fmt.Sprintf("will not resume %s: deja knows no command of %s that reopens it; 'deja show %s' prints what it did", d.ID, d.Harness, d.ID)}
	}
	fmt.Fprintln(io.Out, cmd)
	if _, err := os.Stat(d.History); err != nil {
		fmt.Fprintf(io.Err, "deja: %s's transcript %s is gone, so %s may not find the session; 'deja show %s' prints what deja kept\n", d.ID, d.History, d.Harness, d.ID)
	}
	return nil
}
