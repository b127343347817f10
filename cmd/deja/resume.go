package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/deja-dev/deja/aider"
	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/internal/words"
	"github.com/deja-dev/deja/memory/digest"
	"github.com/deja-dev/deja/memory/recall"
	"github.com/deja-dev/deja/quote"
)

const resumeLong = `Say how to carry on an indexed session's work.

deja reads the histories of

  HARNESSES

For a Claude Code or Codex session deja prints the agent's own command that
reopens it ('claude --resume ID', 'codex resume ID', run in the session's
project); a subagent's session is not reopened on its own, so deja names the
session that ran it. A Gemini CLI session prints 'gemini --resume ID' and an
OpenCode one 'opencode --session ID', each in the session's project. A
GitHub Copilot CLI session prints 'copilot --resume ID'. A session of
Cline's CLI prints 'cline --id ID'; a task of the Cline, Roo Code or Kilo
Code editor extension reopens only from the extension's task history, so
deja refuses it and says so. A pi session prints 'pi --session ID' and an
omp one 'omp --resume ID' (in the project); an OpenClaw session prints
'openclaw tui --session KEY' for the session key its sessions.json gives it
now, and none once that key holds another session.
A Qwen Code session prints 'qwen --resume ID', run in the session's project,
and a Goose one 'goose session --resume --session-id ID'.
A Hermes Agent session prints 'hermes --resume ID' ('hermes --profile NAME
--resume ID' for a profile's), in the session's project.
A Kimi session, of Kimi Code or the older kimi-cli, prints 'kimi --session
ID', run in the session's project.
A Continue session prints 'cn --fork ID' (in the project): Continue's CLI has
no resume by ID, so it opens a new session that carries the whole history.
An Amp thread prints 'amp threads continue ID' and a Factory droid session
'droid --resume ID', each in the session's project; a Crush session prints
'crush --session ID' there. An Antigravity conversation reopens only in the
Antigravity editor, so deja refuses it and says so, as it does a DeepSeek
dsh session: dsh has no command that reopens one.
A Grok Build session prints 'grok --resume ID', run in the session's project.
A cursor-agent CLI chat prints 'cursor-agent --resume ID'; a Cursor IDE
conversation reopens only from Cursor's chat panel, and no command reopens
an agent transcript, so deja refuses both and says so.
A Kiro CLI conversation (its store's, or a ~/.kiro/sessions/cli file's) prints
'kiro-cli chat --resume-id ID' and an Amazon Q CLI one 'q chat --resume', in
the session's project; a Kiro IDE chat, or a session of
~/.kiro/sessions/<workspace>/, reopens only from the app that wrote it, so
deja refuses it (exit 3) and says so.
A Zed agent thread reopens only inside Zed, from its agent panel's history,
so deja refuses it and says so.

deja does not reopen an aider session, and says why: aider has no way to
load one session back. Its only restore is 'aider --restore-chat-history',
which loads the whole history file, every session in it, into the new chat.
deja names that flag and the file, and shows the way it supports instead:
a context file for the project ('deja context') that 'deja aider' hands to
aider with --read.

Everything it says goes to stdout ('deja resume ID | less' shows it); --json
prints one object with the command, or why there is none and the steps to
take instead.

Exit codes: 0 with the command printed, 3 when deja refuses to resume (every
aider session, extension tasks, Cursor IDE, Antigravity, dsh, Kiro IDE and Zed
conversations, and subagents), 1 for an unknown or forgotten session ID.`

// exitRefused is the exit code of a resume deja will not do, so scripts can
// tell it from an ID that names nothing.
const exitRefused = 3

func newResumeCmd(io *IO) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:     "resume SESSION",
		Short:   "Print the command that reopens a session, or say why there is none",
		Long:    withHarnesses(resumeLong),
		Example: "  deja resume aider-0123456789ab-20260717T090000\n  deja resume --json claude-11111111 | jq -r .command",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runResume(cmd, io, args[0], asJSON)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object: the command, or why there is none and what to do instead")
	return cmd
}

// resumeAnswer is what 'deja resume' says of a session: the agent's own
// command that reopens it, or why deja will not and what to do instead.
type resumeAnswer struct {
	Session string `json:"session"`
	Harness string `json:"harness"`
	// Command reopens the session, run as printed (it changes into the
	// session's project first); empty when deja refuses.
	Command string `json:"command,omitempty"`
	// Refused says why there is no command.
	Refused string       `json:"refused,omitempty"`
	Instead []resumeStep `json:"instead,omitempty"`
	// Warning is a doubt about the command (the transcript is gone).
	Warning string `json:"warning,omitempty"`
}

// resumeStep is one thing to do instead of resuming, with what it does.
type resumeStep struct {
	Command string `json:"command"`
	Does    string `json:"does"`
}

func runResume(cmd *cobra.Command, io *IO, ref string, asJSON bool) error {
	ctx := cmd.Context()
	_, sto, err := openConfigured(cmd)
	if err != nil {
		return err
	}
	defer sto.Close()
	id, err := digest.ResolveSession(ctx, sto, ref)
	if err != nil {
		return exitError{code: exitNothing, msg: err.Error()}
	}
	forgotten, err := sto.Forgotten(ctx)
	if err != nil {
		return err
	}
	if slices.Contains(forgotten, id) {
		return exitError{code: exitNothing, msg: fmt.Sprintf("session %s is forgotten: deja keeps nothing of it to resume. "+
			"'deja forget --undo %s' brings it back on the next 'deja index', if its file still holds it", id, id)}
	}
	d, err := digest.Session(ctx, sto, id)
	if err != nil {
		return exitError{code: exitNothing, msg: err.Error()}
	}
	var a resumeAnswer
	if d.Harness != aider.Name {
		a = resumeOther(d)
	} else {
		siblings, err := digest.Sessions(ctx, sto, recall.Scope{Project: filepath.Dir(d.History)})
		if err != nil {
			return err
		}
		inFile := 0
		for _, s := range siblings {
			if s.History == d.History && s.Present {
				inFile++
			}
		}
		a = resumeRefusal(d, inFile)
	}
	if err := printResume(io, a.inert(), asJSON); err != nil {
		return err
	}
	if a.Command == "" {
		return exitError{code: exitRefused}
	}
	return nil
}

// inert makes every part of the answer that names what a history holds (a
// session, a path, a question) inert for the terminal, as quote.Line does.
// The command is left as it is: resumeOther gives none that Line would
// change, since it is run.
func (a resumeAnswer) inert() resumeAnswer {
	a.Session, a.Harness = quote.Line(a.Session), quote.Line(a.Harness)
	a.Refused, a.Warning = quote.Line(a.Refused), quote.Line(a.Warning)
	instead := make([]resumeStep, len(a.Instead))
	for i, st := range a.Instead {
		instead[i] = resumeStep{quote.Line(st.Command), quote.Line(st.Does)}
	}
	a.Instead = instead
	return a
}

// printResume prints the answer on stdout, where 'deja resume ID | less'
// shows it: the command alone when there is one, so it can be run as
// "$(deja resume ID)", else the refusal and what to do instead.
func printResume(io *IO, a resumeAnswer, asJSON bool) error {
	if asJSON {
		enc := json.NewEncoder(io.Out)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false) // shell commands: && stays &&
		return enc.Encode(a)
	}
	if a.Command != "" {
		fmt.Fprintln(io.Out, a.Command)
		if a.Warning != "" {
			fmt.Fprintln(io.Err, "deja:", a.Warning)
		}
		return nil
	}
	fmt.Fprintln(io.Out, a.Refused)
	if len(a.Instead) > 0 {
		fmt.Fprintln(io.Out, "To carry on its work instead:")
		for _, st := range a.Instead {
			fmt.Fprintf(io.Out, "  %s\n      %s\n", st.Command, st.Does)
		}
	}
	return nil
}

// resumeRefusal says why deja will not reopen an aider session and what to
// do instead.
func resumeRefusal(d *digest.SessionDetail, inFile int) resumeAnswer {
	var b strings.Builder
	fmt.Fprintf(&b, "will not resume %s: aider can only restore a whole history file, with 'aider --restore-chat-history', "+
		"which loads every session in %s (%s), not this one session.", d.ID, d.History, words.Count(inFile, "session"))
	if _, err := os.Stat(d.History); err != nil {
		b.WriteString(" That file is gone, too: the flag has nothing to load.")
	} else if !d.Present {
		b.WriteString(" This session has even left that file, so the flag would not bring it back at all.")
	}
	a := resumeAnswer{Session: d.ID, Harness: d.Harness, Refused: b.String()}
	project := filepath.Dir(d.History)
	a.Instead = append(a.Instead, resumeStep{"deja show " + d.ID, "prints what it did, turn by turn"})
	if query := oneLine(d.First, 60); query != "" {
		a.Instead = append(a.Instead, resumeStep{
			fmt.Sprintf("cd %s && aider --read \"$(deja context %s)\"", shellQuote(project), shellQuote(query)),
			"starts aider with the project's past turns most like it"})
	}
	a.Instead = append(a.Instead, resumeStep{fmt.Sprintf("cd %s && deja aider", shellQuote(project)), "starts aider with the project's most recent turns"})
	return a
}

// shellQuote quotes s for a POSIX shell when it needs quoting, for the
// commands deja suggests.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./+:@%,=") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// resumeOther is the command that reopens a session of a harness that can
// reopen its own sessions, or the refusal with what to do instead.
func resumeOther(d *digest.SessionDetail) resumeAnswer {
	a := resumeAnswer{Session: d.ID, Harness: d.Harness}
	show := resumeStep{"deja show " + d.ID, "prints what it did, turn by turn"}
	if d.Subagent {
		a.Refused = fmt.Sprintf("will not resume %s: a subagent ran it for another session and %s cannot reopen it on its own.", d.ID, d.Harness)
		if d.Parent != "" {
			// Offered only when it would print a command: Zed's parent
			// thread, say, is refused the same way.
			if r, ok := knownHarnesses().Lookup(d.Harness).(harness.Resumer); ok && r.ResumeCommand(d.Parent, d.Project) != "" {
				a.Instead = append(a.Instead, resumeStep{"deja resume " + d.Parent, "reopens the session that ran it"})
			} else {
				a.Instead = append(a.Instead, resumeStep{"deja show " + d.Parent, "prints what the session that ran it did"})
			}
		}
		a.Instead = append(a.Instead, show)
		return a
	}
	r, _ := knownHarnesses().Lookup(d.Harness).(harness.Resumer)
	if r != nil {
		id := d.ID
		if harness.IsPromptID(d.Harness, id) && d.Parent != "" {
			// A prompt of a prompt history: the session it was typed in
			// is what reopens.
			id = d.Parent
		}
		a.Command = r.ResumeCommand(id, d.Project)
	}
	if a.Command == "" {
		a.Refused = fmt.Sprintf("will not resume %s: deja knows no command of %s that reopens it.", d.ID, cmp.Or(harnessTitles[d.Harness], d.Harness))
		if rr, ok := r.(harness.ResumeRefuser); ok {
			a.Refused = fmt.Sprintf("will not resume %s: %s.", d.ID, rr.ResumeRefusal(d.ID, d.Project))
		}
		a.Instead = append(a.Instead, show)
		return a
	}
	if !quote.Inert(a.Command) {
		// A project (a transcript's cwd) or ID holding a control or an
		// invisible character would reach the terminal, and the shell,
		// as it is.
		a.Command = ""
		a.Refused = fmt.Sprintf("will not resume %s: its project %s holds characters a terminal would act on or not show, so no command to reopen it is printed.", d.ID, d.Project)
		a.Instead = append(a.Instead, show)
		return a
	}
	if _, err := os.Stat(d.History); err != nil {
		a.Warning = fmt.Sprintf("%s's transcript %s is gone, so %s may not find the session; 'deja show %s' prints what deja kept", d.ID, d.History, d.Harness, d.ID)
	}
	return a
}
