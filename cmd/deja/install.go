package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/deja-dev/deja/config"
	"github.com/deja-dev/deja/install"
)

const installLong = `Wire deja into coding agents: add deja's MCP server ('deja mcp', by the
absolute path of this deja) to each agent's own config file, or for aider
deja's context file to the project's .aider.conf.yml.

  claude-code  ~/.claude.json                       mcpServers.deja
  codex        $CODEX_HOME/config.toml (~/.codex)   [mcp_servers.deja]
  gemini       ~/.gemini/settings.json              mcpServers.deja
  cursor       ~/.cursor/mcp.json                   mcpServers.deja
  opencode     ~/.config/opencode/opencode.json     mcp.deja
  aider        PROJECT/.aider.conf.yml              read: the context file
               ('deja aider' or 'deja context' refreshes it)

With no AGENT, every agent deja finds: its config file or directory in
your home (for aider, ~/.aider, or a .aider.conf.yml or chat history in
the project). The file is edited as text: every other entry, comment
and the layout stay, and so does the file's mode. The old file is kept
beside it as FILE.deja-backup, and the new one replaces it atomically.
Installing twice changes nothing.

Nothing is changed without your say: on a terminal deja shows each
file's diff and asks before it writes; --yes writes without asking, and
off a terminal (a script, a pipe) nothing is written without it: deja
prints the plan and exits 2. --uninstall takes out exactly what
install put in (an mcpServers object left empty goes with it, and a file
left empty is removed, with the directories install made for it), and
leaves no backup behind; --dry-run prints the unified diff and writes
nothing.

--hooks also registers 'deja hook AGENT', which adds related turns from
your other sessions to each prompt, where the agent has a prompt hook:

  claude-code  ~/.claude/settings.json              hooks.UserPromptSubmit
  codex        $CODEX_HOME/hooks.json               hooks.UserPromptSubmit
  gemini       ~/.gemini/settings.json              hooks.BeforeAgent

Cursor, OpenCode and aider have no hook that adds context to a prompt:
for them --hooks adds the MCP server alone. 'deja install --hooks
--uninstall' takes both out again.

--json prints {dry_run, uninstall, changes[{agent, file, entry, action,
backup, diff, error}]}; action is add, remove or unchanged.`

type installChangeJSON struct {
	Agent  string `json:"agent"`
	File   string `json:"file"`
	Entry  string `json:"entry"`
	Action string `json:"action"`
	Backup string `json:"backup,omitempty"`
	Diff   string `json:"diff,omitempty"`
	Error  string `json:"error,omitempty"`
}

func newInstallCmd(io *IO) *cobra.Command {
	var dryRun, uninstall, asJSON, hooks, yes bool
	cmd := &cobra.Command{
		Use:       "install [AGENT...]",
		Short:     "Add deja's MCP server to your agents' configs (claude-code, codex, gemini, cursor, opencode, aider)",
		Long:      installLong,
		ValidArgs: install.Agents,
		RunE: func(cmd *cobra.Command, args []string) error {
			env, err := installEnv(cmd)
			if err != nil {
				return err
			}
			targets, err := install.Select(install.Targets(env), args)
			if err != nil {
				return exitError{code: 2, msg: err.Error()}
			}
			if hooks {
				targets = withHooks(targets, install.HookTargets(env))
			}
			if len(targets) == 0 {
				return exitError{code: 1, msg: "deja found none of its agents installed (" + strings.Join(install.Agents, ", ") +
					"); name one: deja install claude-code"}
			}
			type planned struct {
				c   install.Change
				js  installChangeJSON
				err error
			}
			var plans []planned
			pending := 0
			for _, t := range targets {
				p := planned{js: installChangeJSON{Agent: t.Agent, File: t.File, Entry: t.Entry}}
				p.c, p.err = install.Plan(cmd.Context(), t, uninstall)
				if p.err == nil {
					p.js.Action, p.js.Diff = p.c.Action, p.c.Diff()
					if p.c.Action != "unchanged" {
						pending++
					}
				}
				plans = append(plans, p)
			}
			if !dryRun && !yes && pending > 0 {
				var shown []installChangeJSON
				for _, p := range plans {
					js := p.js
					if p.err != nil {
						js.Error, js.Diff = p.err.Error(), ""
					}
					shown = append(shown, js)
				}
				if !io.InTTY {
					if asJSON {
						if err := writeInstallJSON(io, true, uninstall, shown); err != nil {
							return err
						}
					} else {
						printInstall(io, shown, true)
					}
					return exitError{code: 2, msg: fmt.Sprintf("nothing changed: %s to make, and deja changes other programs' config files only when asked; run it on a terminal to be asked, or add --yes",
						plural(pending, "change"))}
				}
				printInstall(io, shown, true)
				fmt.Fprintf(io.Err, "Write %s? [y/N] ", plural(pending, "change"))
				answer, _ := bufio.NewReader(io.In).ReadString('\n')
				if a := strings.ToLower(strings.TrimSpace(answer)); a != "y" && a != "yes" {
					return exitError{code: 1, msg: "nothing changed"}
				}
			}
			var out []installChangeJSON
			failed := 0
			for _, p := range plans {
				js, c, err := p.js, p.c, p.err
				if err == nil && !dryRun {
					err = install.Apply(cmd.Context(), c)
					if err == nil && c.Existed && c.Action != "unchanged" {
						js.Backup = js.File + install.BackupSuffix
					}
				}
				if err != nil {
					js.Error, js.Diff = err.Error(), ""
					failed++
				}
				out = append(out, js)
			}
			if asJSON {
				if err := writeInstallJSON(io, dryRun, uninstall, out); err != nil {
					return err
				}
			} else {
				printInstall(io, out, dryRun)
			}
			if failed > 0 {
				return exitError{code: exitFailed, msg: fmt.Sprintf("%d of %d agents were left as they were; the errors above say why", failed, len(out))}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "print the diff of each file and write nothing")
	cmd.Flags().BoolVar(&uninstall, "uninstall", false, "take deja out again")
	cmd.Flags().BoolVarP(&yes, "yes", "y", false, "write without asking (needed off a terminal)")
	cmd.Flags().BoolVar(&hooks, "hooks", false, "also register 'deja hook AGENT' as the prompt hook of claude-code, codex and gemini (with --uninstall: take it out)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object (fields in 'deja install --help')")
	return cmd
}

// writeInstallJSON prints install's one JSON object.
func writeInstallJSON(io *IO, dryRun, uninstall bool, changes []installChangeJSON) error {
	enc := json.NewEncoder(io.Out)
	enc.SetIndent("", "  ")
	return enc.Encode(map[string]any{"dry_run": dryRun, "uninstall": uninstall, "changes": changes})
}

func printInstall(io *IO, out []installChangeJSON, dryRun bool) {
	for _, c := range out {
		var what string
		switch {
		case c.Error != "":
			what = "not changed: " + c.Error
		case c.Action == "unchanged":
			what = "unchanged: " + c.File
		case dryRun:
			what = "would " + c.Action + " " + c.Entry + " in " + c.File
		default:
			what = map[string]string{"add": "added ", "remove": "removed "}[c.Action] + c.Entry + " in " + c.File
			if c.Backup != "" {
				what += " (backup " + c.Backup + ")"
			}
		}
		fmt.Fprintf(io.Out, "%-12s %s\n", c.Agent, what)
		if dryRun && c.Diff != "" {
			fmt.Fprint(io.Out, c.Diff)
		}
	}
}

// installEnv says where the agents' files are and which deja they start.
func installEnv(cmd *cobra.Command) (install.Env, error) {
	cfg, err := loadConfig(cmd, nil)
	if err != nil {
		cfg.DataDir = config.DataDir()
	}
	return installEnvFor(cfg.DataDir)
}

// installEnvFor is installEnv with the data directory (where aider's
// context file lives) given.
func installEnvFor(dataDir string) (install.Env, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return install.Env{}, fmt.Errorf("finding the home directory: %w (set HOME)", err)
	}
	bin, err := os.Executable()
	if err != nil {
		return install.Env{}, fmt.Errorf("finding this deja's path: %w", err)
	}
	if p, err := filepath.EvalSymlinks(bin); err == nil {
		bin = p
	}
	env := install.Env{Home: home, Deja: bin, ConfigDir: os.Getenv("XDG_CONFIG_HOME"), CodexHome: os.Getenv("CODEX_HOME")}
	if env.ConfigDir == "" {
		env.ConfigDir = filepath.Join(home, ".config")
	}
	if env.CodexHome == "" {
		env.CodexHome = filepath.Join(home, ".codex")
	}
	if env.Project, err = projectDir(""); err != nil {
		return install.Env{}, err
	}
	env.AiderRead = contextFile(dataDir, env.Project)
	env.Record = filepath.Join(dataDir, install.RecordFile)
	return env, nil
}

// withHooks adds the hook target of each selected agent that has one:
// joined to the agent's MCP target when both edit the same file (one
// edit, one backup), else after it.
func withHooks(targets, hooks []install.Target) []install.Target {
	var out []install.Target
	for _, t := range targets {
		var extra []install.Target
		for _, h := range hooks {
			switch {
			case h.Agent != t.Agent:
			case h.File == t.File:
				t = install.Merge(t, h)
			default:
				extra = append(extra, h)
			}
		}
		out = append(append(out, t), extra...)
	}
	return out
}
