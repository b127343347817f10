package main

import (
	"cmp"
	"errors"
	"fmt"
	"github.com/deja-dev/deja/harness/every"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/deja-dev/deja/aider"
	"github.com/deja-dev/deja/config"
	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/note"
	"github.com/deja-dev/deja/userfile"
)

// knownHarnesses are the harnesses deja reads, in the order a file named
// on the command line is offered to them: the formats that sniff for
// their own first line first, aider, which reads any text, last.
func knownHarnesses() harness.Registry {
	return every.Readers()
}

// harnessTitles name each harness as its users know it, in help texts;
// TestHelpNamesEveryHarness holds every known harness to one.
var harnessTitles = map[string]string{
	"aider":       "aider",
	"amp":         "Amp",
	"antigravity": "Antigravity (and Windsurf, reported as encrypted)",
	"claude":      "Claude Code",
	"cline":       "Cline (with Roo Code and Kilo Code)",
	"codex":       "Codex",
	"continue":    "Continue",
	"copilot":     "GitHub Copilot CLI",
	"crush":       "Crush",
	"cursor":      "Cursor",
	"dsh":         "DeepSeek dsh",
	"factory":     "Factory Droid",
	"gemini":      "Gemini CLI",
	"goose":       "Goose",
	"grok":        "Grok Build",
	"hermes":      "Hermes Agent",
	"kimi":        "Kimi (Kimi Code and kimi-cli)",
	"kiro":        "Kiro (IDE, CLI and Amazon Q CLI)",
	"opencode":    "OpenCode",
	"pi":          "pi (with OpenClaw and omp)",
	"qwen":        "Qwen Code",
	"zed":         "Zed (its built-in agent)",
}

// harnessAliases are the names people give the agents that one harness
// reads, or the agents' own names for them, and the harness that reads
// each: --harness names the harness, and a refusal says which.
var harnessAliases = map[string]string{
	"claude-code": "claude", "gemini-cli": "gemini", "copilot-cli": "copilot", "github-copilot": "copilot",
	"qwen-code": "qwen", "hermes-agent": "hermes", "cursor-agent": "cursor", "roo": "cline", "roo-code": "cline", "kilo": "cline",
	"kilo-code": "cline", "kimi-code": "kimi", "kimi-cli": "kimi", "openclaw": "pi", "omp": "pi", "oh-my-pi": "pi",
	"cn": "continue", "droid": "factory", "factory-droid": "factory", "continuedev": "continue", "continue-dev": "continue",
	"deepseek": "dsh", "deepseek-harness": "dsh", "grok-build": "grok", "kiro-cli": "kiro", "kiro-ide": "kiro", "amazon-q": "kiro",
}

// unreadableAgents are agents deja knows but cannot read, by the names
// people give them, each with why, in a sentence: --harness naming one
// says so rather than list the harnesses as for a name deja never heard
// of ('deja sources' reports their folders the same way).
var unreadableAgents = map[string]string{
	"windsurf": "Windsurf's conversations are encrypted (AES-GCM); deja cannot read them",
	"codeium":  "Windsurf's conversations are encrypted (AES-GCM); deja cannot read them",
}

// harnessBlock lists every known harness by title, in the order of the
// configuration's names, wrapped at 78 columns under indent, for the help
// texts that say what deja reads (the HARNESSES line of each).
func harnessBlock(indent string) string {
	var b strings.Builder
	line := indent
	for i, name := range config.HarnessNames {
		item := cmp.Or(harnessTitles[name], name)
		if i < len(config.HarnessNames)-1 {
			item += ","
		}
		if line != indent && len(line)+1+len(item) > 78 {
			b.WriteString(strings.TrimRight(line, " ") + "\n")
			line = indent
		}
		if line != indent {
			line += " "
		}
		line += item
	}
	b.WriteString(line)
	return b.String()
}

// withHarnesses is a help text with its HARNESSES line (two spaces
// then the word) replaced by the list of every harness.
func withHarnesses(text string) string {
	return strings.Replace(text, "\n  HARNESSES\n", "\n"+harnessBlock("  ")+"\n", 1)
}

// enabledHarnesses are the known harnesses the configuration leaves on.
func enabledHarnesses(cfg config.Config) harness.Registry {
	var reg harness.Registry
	for _, h := range knownHarnesses() {
		if cfg.Harness(h.Name()).Enabled {
			reg = append(reg, h)
		}
	}
	return reg
}

// withNotes is reg with deja's own notes first ('deja remember', 'deja
// mark'): 'deja index' reads the notes file again as a history it knows,
// and no agent's reader may claim it.
func withNotes(reg harness.Registry) harness.Registry {
	return append(harness.Registry{note.Reader{}}, reg...)
}

// discoverOptions are one harness's places: the environment, the home
// and working directories, and its <name>.dirs configuration.
func discoverOptions(cfg config.Config, name string) harness.DiscoverOptions {
	// Without a home or working directory the places that need them are
	// skipped, rather than failing discovery.
	home, _ := os.UserHomeDir()
	wd, _ := os.Getwd()
	return harness.DiscoverOptions{
		Home:      home,
		WorkDir:   wd,
		Getenv:    os.Getenv,
		ConfigDir: cfg.ConfigDir,
		Dirs:      cfg.Harness(name).Dirs,
	}
}

// discovered is what one harness's discovery found.
type discovered struct {
	Harness string
	// Enabled is false for a harness switched off in the configuration,
	// which is then not searched.
	Enabled bool
	harness.Discovery
}

// discoverAll runs every enabled harness's discovery, in registry order.
func discoverAll(cfg config.Config) []discovered {
	var out []discovered
	for _, h := range knownHarnesses() {
		d := discovered{Harness: h.Name(), Enabled: cfg.Harness(h.Name()).Enabled}
		if d.Enabled {
			opts := discoverOptions(cfg, h.Name())
			d.Discovery = h.Discover(opts)
			if h.Name() != aider.Name { // aider names its own missing roots
				d.Warnings = append(d.Warnings, missingDirs(h.Name(), opts)...)
			}
		}
		out = append(out, d)
	}
	return out
}

// missingDirs says of each of a harness's <name>.dirs that is not there
// that it is not: the dirs replace the harness's own places, so a typo
// there would otherwise leave it finding nothing, in silence.
func missingDirs(name string, opts harness.DiscoverOptions) []string {
	var out []string
	for _, d := range opts.Dirs {
		p := harness.ExpandHome(d, opts.Home)
		if !filepath.IsAbs(p) && opts.WorkDir != "" {
			p = filepath.Join(opts.WorkDir, p)
		}
		if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
			out = append(out, fmt.Sprintf("%s.dirs names %s, which does not exist; fix or remove it", name, d))
		}
	}
	return out
}

// foundSource is a discovered history with the harness that reads it.
type foundSource struct {
	Harness string
	harness.Source
}

// discoverSources returns every enabled harness's histories, with the
// warnings of their discovery.
func discoverSources(cfg config.Config) ([]foundSource, []string) {
	var sources []foundSource
	var warnings []string
	for _, d := range discoverAll(cfg) {
		for _, s := range d.Sources {
			sources = append(sources, foundSource{Harness: d.Harness, Source: s})
		}
		for _, w := range d.Warnings {
			if d.Harness != aider.Name {
				w = d.Harness + ": " + w
			}
			warnings = append(warnings, w)
		}
	}
	return sources, warnings
}

// addHarnessFlags adds --harness and --include-subagents, which recall
// and sessions share.
func addHarnessFlags(cmd *cobra.Command, name *string, subagents *bool) {
	cmd.Flags().StringVar(name, "harness", "", "only sessions of this harness: "+strings.Join(knownHarnesses().Names(), ", "))
	cmd.Flags().BoolVar(subagents, "include-subagents", false, "include sessions subagents ran (Claude Code sidechains, Codex exec and review runs)")
}

// checkHarness refuses a --harness that names no harness deja reads.
func checkHarness(name string) error {
	if name == "" || knownHarnesses().Lookup(name) != nil {
		return nil
	}
	if h, ok := harnessAliases[strings.ToLower(name)]; ok {
		return fmt.Errorf("--harness %q: the harness %s reads %s: use --harness %s", name, h, harnessTitles[h], h)
	}
	if why, ok := unreadableAgents[strings.ToLower(name)]; ok {
		return fmt.Errorf("--harness %q: %s", name, why)
	}
	return fmt.Errorf("--harness %q: deja reads %s", name, strings.Join(knownHarnesses().Names(), ", "))
}

// claimedByTranscriptHarness reports whether a harness other than aider
// (which reads any text) claims the file: a directory walk must not take
// every .jsonl it meets for a history.
func claimedByTranscriptHarness(reg harness.Registry) func(path string) bool {
	var specific harness.Registry
	for _, h := range reg {
		if h.Name() != aider.Name {
			specific = append(specific, h)
		}
	}
	return func(path string) bool {
		head, err := readHead(path)
		if err != nil {
			return false
		}
		_, err = specific.Detect(path, head)
		return err == nil
	}
}

// readHead returns a file's first 8 KiB, what harnesses sniff.
func readHead(path string) ([]byte, error) {
	// Not os.Open: a FIFO here would wait for a writer for ever.
	f, _, err := userfile.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	head := make([]byte, 8192)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return head[:n], nil
}
