package main

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/deja-dev/deja/aider"
	"github.com/deja-dev/deja/config"
	"github.com/deja-dev/deja/quote"
)

const sourcesLong = `List the histories deja finds, with each file's size and the places that
led to it. deja reads the histories of

  HARNESSES

For aider:

  home                     ~/.aider.chat.history.md, written when aider runs in
                           your home directory
  AIDER_CHAT_HISTORY_FILE  the history file aider is told to write; a relative
                           path is taken from the current directory, as aider does
  aider-projects           <dir>/.aider.chat.history.md for each directory listed
                           in ~/.config/deja/aider-projects (XDG_CONFIG_HOME
                           honoured), which 'deja aider' keeps
  this project             <root>/.aider.chat.history.md of the repository the
                           command runs in (the directory itself outside one);
                           'deja index' adds it to aider-projects
  root DIR                 each directory in DEJA_AIDER_ROOTS (separated like
                           PATH), searched with the two levels below it; hidden
                           directories and node_modules are skipped

Claude Code transcripts are found under ~/.claude/projects
($CLAUDE_CONFIG_DIR/projects when set), Codex rollouts under
~/.codex/sessions and ~/.codex/archived_sessions ($CODEX_HOME when set), and
each other harness's histories where its agent writes them, on Linux, macOS
and Windows (docs/harnesses.md lists them); their reasons start with the
harness's name. The prompt histories the agents keep beside their sessions
are listed too (~/.claude/history.jsonl, ~/.codex/history.jsonl,
~/.cursor/prompt_history.json, ~/.copilot/command-history-state.json): a
prompt there that no session holds becomes a turn of its own. Each harness's
places are replaced by <name>.dirs in the config (DEJA_<NAME>_DIRS), and a
harness is switched off with <name>.enabled = false.

A file found from several places is listed once. Places that are missing or
unreadable are reported as warnings on stderr, and so is a harness that is
installed but left nothing to read.`

// sourcesOptions is what `deja sources` acts on.
type sourcesOptions struct {
	JSON     bool
	Discover aider.DiscoverOptions
	Config   config.Config
}

func newSourcesCmd(io *IO) *cobra.Command {
	var opts sourcesOptions
	cmd := &cobra.Command{
		Use:   "sources",
		Short: "List the histories deja finds and why",
		Long:  withHarnesses(sourcesLong),
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := loadConfig(cmd, nil)
			if err != nil {
				return err
			}
			opts.Config = cfg
			opts.Discover = aider.DiscoverOptionsFromEnv(config.ProjectsFile())
			return runSources(io, opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print JSON: {\"sources\": [...], \"warnings\": [...]}")
	return cmd
}

func runSources(io *IO, opts sourcesOptions) error {
	found := discoverAll(opts.Config)
	sources, warnings := discoverSources(opts.Config)
	warnings = append(warnings, emptyHarnesses(found)...)
	if opts.JSON {
		return printSourcesJSON(io.Out, sources, warnings)
	}
	var rows [][]string
	for _, s := range sources {
		rows = append(rows, []string{quote.Line(s.Path), formatSize(s.Size), quote.Line(sourceReasons(s))})
	}
	// On a terminal each line fits its width: the reasons give way, then
	// the start of the path.
	fitTable(rows, io.Width, 0)
	tw := tabwriter.NewWriter(io.Out, 0, 0, 2, ' ', 0)
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, w := range warnings {
		fmt.Fprintln(io.Err, "deja: warning:", quote.Line(w))
	}
	if len(sources) == 0 {
		printNothingFound(io.Err, opts.Discover)
	}
	return nil
}

// sourceReasons names the places that led to a source; those of a harness
// other than aider start with its name ("claude ~/.claude/projects").
func sourceReasons(s foundSource) string {
	reasons := make([]string, len(s.Reasons))
	for i, r := range s.Reasons {
		reasons[i] = r.String()
		if s.Harness != aider.Name {
			reasons[i] = s.Harness + " " + reasons[i]
		}
	}
	return strings.Join(reasons, ", ")
}

// emptyHarnesses says, for each harness installed here that left nothing
// to read, where deja looked and why it found nothing: the sessions a user
// expects are missing, and silence would hide it.
func emptyHarnesses(found []discovered) []string {
	var out []string
	for _, d := range found {
		if !d.Enabled || !d.Installed || len(d.Sources) > 0 || d.Harness == aider.Name {
			continue
		}
		var looked []string
		exists := false
		for _, p := range d.Places {
			looked = append(looked, p.Path)
			exists = exists || p.Exists
		}
		why := "none of them exists"
		if exists {
			why = "it holds no session files"
		}
		if len(looked) > 1 && exists {
			why = "they hold no session files"
		}
		out = append(out, fmt.Sprintf("%s is installed but deja found no sessions: it looked in %s, and %s (the harness may have deleted old ones; set %s.dirs in the config if they live elsewhere)",
			d.Harness, strings.Join(looked, ", "), why, d.Harness))
	}
	return out
}

// sourcesJSON is the --json output; its slices are never nil, so agents
// always see arrays.
type sourcesJSON struct {
	Sources  []sourceJSON `json:"sources"`
	Warnings []string     `json:"warnings"`
}

type sourceJSON struct {
	Path     string       `json:"path"`
	Reasons  []reasonJSON `json:"reasons"`
	Size     int64        `json:"size"`
	Modified string       `json:"modified"`
	Harness  string       `json:"harness"`
	// label is how 'deja sources' names the reasons, for doctor's text:
	// a kind alone cannot say which harness's variable led to the file.
	label string
}

// newSourceJSON is one source as sources --json and doctor --json give it.
func newSourceJSON(s foundSource) sourceJSON {
	js := sourceJSON{
		Path:     s.Path,
		Harness:  s.Harness,
		Reasons:  make([]reasonJSON, 0, len(s.Reasons)),
		Size:     s.Size,
		Modified: s.ModTime.Format(time.RFC3339),
		label:    sourceReasons(s),
	}
	for _, r := range s.Reasons {
		js.Reasons = append(js.Reasons, reasonJSON{Kind: r.Kind, From: r.From, Name: r.Name})
	}
	return js
}

// reasonJSON is one place that led to a source. Name is how a user looks
// it up ("XDG_DATA_HOME", "amp.dirs", "~/.local/share/amp/threads"): two
// places of kind "env" and "default" may be the same folder, and only the
// name says which variable it came from.
type reasonJSON struct {
	Kind string `json:"kind"`
	From string `json:"from"`
	Name string `json:"name,omitempty"`
}

func printSourcesJSON(w io.Writer, sources []foundSource, warnings []string) error {
	out := sourcesJSON{
		Sources:  make([]sourceJSON, 0, len(sources)),
		Warnings: append([]string{}, warnings...),
	}
	for _, s := range sources {
		out.Sources = append(out.Sources, newSourceJSON(s))
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// printNothingFound tells a user with no histories where deja looked and
// how to point it at theirs.
func printNothingFound(w io.Writer, opts aider.DiscoverOptions) {
	env := "(not set)"
	if opts.HistoryEnv != "" {
		env = opts.HistoryEnv
	}
	roots := "(not set)"
	if len(opts.Roots) > 0 {
		roots = strings.Join(opts.Roots, " ")
	}
	// Every harness found nothing; aider's places are the ones a user
	// adds to, so they are listed, and the rest are pointed at.
	fmt.Fprintln(w, "deja: no histories found, of any agent. For aider, deja looked at:")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	if opts.Home != "" {
		fmt.Fprintf(tw, "  home\t%s\n", filepath.Join(opts.Home, aider.HistoryFileName))
	}
	fmt.Fprintf(tw, "  AIDER_CHAT_HISTORY_FILE\t%s\n", env)
	fmt.Fprintf(tw, "  aider-projects\t%s\n", opts.ProjectsFile)
	fmt.Fprintf(tw, "  DEJA_AIDER_ROOTS\t%s\n", roots)
	tw.Flush()
	fmt.Fprintln(w, `Add places with:
  export DEJA_AIDER_ROOTS=~/code       search ~/code and two levels below it
  deja aider                           start aider through deja, which lists the project
  export AIDER_CHAT_HISTORY_FILE=PATH  the history file you tell aider to write
For the other agents, 'deja sources --help' says where deja looks; point it
at another place with <name>.dirs in the config (DEJA_<NAME>_DIRS).`)
}

// formatSize writes a byte count the way people read file sizes.
func formatSize(n int64) string {
	if n < 1024 {
		return fmt.Sprintf("%d B", n)
	}
	size, unit := float64(n)/1024, "KiB"
	for _, next := range []string{"MiB", "GiB", "TiB"} {
		if size < 1024 {
			break
		}
		size, unit = size/1024, next
	}
	return fmt.Sprintf("%.1f %s", size, unit)
}
