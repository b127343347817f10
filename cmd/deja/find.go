package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/deja-dev/deja/embed"
	"github.com/deja-dev/deja/memory/recall"
	"github.com/deja-dev/deja/tui"
)

const findLong = `Search past turns interactively: results follow the query as you type.

Each row shows when the session started, its project and harness, the
question and the files and commands of the turn; the pane below previews the
selected turn with the query's words highlighted.

Keys:
  type            the query (results update as typing pauses)
  up/down         move (also ctrl-p/ctrl-n); pgup/pgdown a page
  tab/shift-tab   switch mode: hybrid, semantic, keyword
  alt-p           only this project (the one find started in) / every project
  alt-h           step through the agents: aider, claude, codex, … and all
  alt-t           step through the time: last day, week, 30 days, year, any
  ctrl-y          copy the turn's SESSION/TURN
  alt-y           copy the turn's text (question, answer, files, commands)
  enter           print the turn as SESSION/TURN and exit
  ctrl-o          open the whole session in the pager ($PAGER, less -R)
  esc, ctrl-c     quit without choosing (exit 130)

The screen is drawn on the terminal, never into a pipe, so
  deja show "$(deja find)"
shows the turn you picked. Without a terminal, find refuses (exit 2): use
'deja recall QUERY' (--json for scripts). NO_COLOR turns colour off.

Copying writes the terminal's clipboard sequence (OSC 52, which tmux,
kitty, iTerm2, WezTerm and most terminals accept) and also hands the text
to wl-copy, xclip, xsel or pbcopy when one is there.`

type findOptions struct {
	mode      string
	project   string
	harness   string
	subagents bool
	limit     int
}

func newFindCmd(io *IO) *cobra.Command {
	var opts findOptions
	cmd := &cobra.Command{
		Use:   "find [QUERY]",
		Short: "Search past turns interactively, results updating as you type",
		Long:  findLong,
		Example: `  deja find
  deja find tenant
  deja show "$(deja find)"`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runFind(cmd, io, opts, strings.Join(args, " "))
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.mode, "mode", "", "the mode to start in: hybrid, semantic or keyword (default from recall.mode)")
	f.StringVar(&opts.project, "project", "", "only sessions of histories in DIR or below it")
	f.IntVar(&opts.limit, "limit", 20, "how many turns to list")
	addHarnessFlags(cmd, &opts.harness, &opts.subagents)
	return cmd
}

// findTerminal is where find draws and reads keys: stdout and stdin when
// they are terminals, else the controlling terminal, so that stdout can
// carry the chosen turn to a pipe or "$(...)".
type findTerminal struct {
	out, in *os.File
	close   func()
}

func openFindTerminal(io *IO) (*findTerminal, error) {
	t := &findTerminal{close: func() {}}
	stdout, _ := io.Out.(*os.File)
	stdin, _ := io.In.(*os.File)
	if io.OutTTY && stdout != nil {
		t.out = stdout
	}
	if stdin != nil && term.IsTerminal(int(stdin.Fd())) {
		t.in = stdin
	}
	if t.out != nil && t.in != nil {
		return t, nil
	}
	// Only a terminal already in use may be opened: with neither stdout
	// nor stderr on one, find runs in a script or a pipe.
	if !io.OutTTY && !io.ErrTTY {
		return nil, errNoTerminal
	}
	tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err != nil {
		return nil, errNoTerminal
	}
	if t.out == nil {
		t.out = tty
	}
	if t.in == nil {
		t.in = tty
	}
	t.close = func() { tty.Close() }
	return t, nil
}

var errNoTerminal = exitError{code: 2, msg: "find draws on a terminal and there is none here; in scripts and pipes use 'deja recall QUERY' (--json for a layout to parse)"}

func runFind(cmd *cobra.Command, io *IO, opts findOptions, query string) error {
	ctx := cmd.Context()
	cfg, err := loadConfig(cmd, map[string]string{"mode": "recall.mode"})
	if err != nil {
		return err
	}
	mode, err := recall.ParseMode(cfg.Recall.Mode)
	if err != nil {
		return err
	}
	cfg.Recall.Limit = opts.limit
	if err := checkHarness(opts.harness); err != nil {
		return err
	}
	filter := tui.Filter{Harness: opts.harness}
	if filter.Project, err = projectFlag(opts.project); err != nil {
		return err
	}
	tty, err := openFindTerminal(io)
	if err != nil {
		return err
	}
	defer tty.close()

	sto, err := openStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer sto.Close()
	if err := checkScope(ctx, sto, recall.Scope{Project: filter.Project}); err != nil {
		return err
	}
	var here string
	if wd, err := os.Getwd(); err == nil {
		if wd, err = resolveDir(wd); err == nil {
			here, _ = recall.ProjectOf(ctx, sto, wd)
		}
	}
	harnesses, err := recall.Harnesses(ctx, sto)
	if err != nil {
		return err
	}

	// Nothing may write to the terminal while the screen is drawn.
	quiet := &IO{In: io.In, Out: discard, Err: discard}
	var once sync.Once
	var emb embed.Embedder
	var noEmb string
	search := func(qctx context.Context, q string, m recall.Mode, f tui.Filter) (*recall.Answer, error) {
		qctx, stop := context.WithCancel(qctx)
		defer stop()
		go func() { // the command's own cancellation (a signal) ends it too
			select {
			case <-ctx.Done():
				stop()
			case <-qctx.Done():
			}
		}()
		sc := recall.Scope{Project: f.Project, Harness: f.Harness, Subagents: opts.subagents}
		if f.Within > 0 {
			sc.Since = time.Now().Add(-f.Within)
		}
		if r := recallServed(qctx, quiet, cfg, q, m, sc); r != nil {
			return r, nil
		}
		ropts := recall.Options{Query: q, Mode: m, Scope: sc, Limit: cfg.Recall.Limit}
		if m != recall.Keyword {
			once.Do(func() { emb, noEmb = selectEmbedder(ctx, quiet, cfg) })
			ropts.Embedder, ropts.NoEmbedder = emb, noEmb
		}
		return recall.Recall(qctx, sto, ropts)
	}

	color := os.Getenv("NO_COLOR") == "" && os.Getenv("TERM") != "dumb"
	// The text input draws its cursor with the default renderer; make it
	// draw for the terminal in use, not for stdout.
	r := lipgloss.NewRenderer(tty.out)
	if !color {
		r.SetColorProfile(termenv.Ascii)
	}
	lipgloss.SetDefaultRenderer(r)

	self, _ := os.Executable()
	model := tui.New(tui.Options{
		Search:    search,
		Query:     query,
		Mode:      mode,
		Color:     color,
		Filter:    filter,
		Here:      here,
		Harnesses: harnesses,
		Copy:      func(text string) error { return copyText(tty.out, text) },
		Open: func(id string) *exec.Cmd {
			// The session through 'deja show', paged as show pages it.
			return exec.Command("sh", "-c", `"$0" show -- "$1" | ${PAGER:-less -R}`, self, id)
		},
	})
	p := tea.NewProgram(model, tea.WithAltScreen(), tea.WithContext(ctx),
		tea.WithInput(tty.in), tea.WithOutput(tty.out))
	final, err := p.Run()
	if err != nil && ctx.Err() == nil {
		return fmt.Errorf("find: %w", err)
	}
	m, ok := final.(tui.Model)
	if !ok || ctx.Err() != nil {
		return ctx.Err()
	}
	if m.Chosen() != "" {
		fmt.Fprintln(io.Out, m.Chosen())
		return nil
	}
	return exitError{code: 130}
}

// discard takes what must not reach the terminal find draws on.
var discard io.Writer = io.Discard
