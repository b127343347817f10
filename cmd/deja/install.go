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
	"github.com/deja-dev/deja/internal/words"
)

const installLong = `Wire deja into coding agents, each through what the agent itself offers:
its MCP server ('deja mcp', by the absolute path of this deja) in the
agent's own config file, deja's skill (a SKILL.md that teaches the
command line), with --hooks 'deja hook AGENT' at each moment the agent
has a hook for, and with --guidance a marked block in its user-level
guidance file. For aider, deja's context file goes into the project's
.aider.conf.yml ('deja aider' or 'deja context' refreshes it).

  agent        MCP                                         skill
  claude-code  ~/.claude.json mcpServers.deja              ~/.claude/skills/deja
  codex        $CODEX_HOME/config.toml [mcp_servers.deja]  ~/.agents/skills/deja
  gemini       ~/.gemini/settings.json mcpServers.deja     ~/.agents/skills/deja
  qwen         ~/.qwen/settings.json mcpServers.deja       ~/.qwen/skills/deja
  copilot      ~/.copilot/mcp-config.json mcpServers.deja  ~/.copilot/skills/deja
  cursor       ~/.cursor/mcp.json mcpServers.deja          -
  cline        ~/.cline/data/settings/cline_mcp_settings.json mcpServers.deja
                                                           ~/.agents/skills/deja
  opencode     ~/.config/opencode/opencode.json mcp.deja   ~/.agents/skills/deja
  pi           - (pi has no MCP)                           ~/.agents/skills/deja
  aider        PROJECT/.aider.conf.yml read: context file  -
  amp          ~/.config/amp/settings.json amp.mcpServers.deja
                                                           ~/.config/agents/skills/deja
  factory      ~/.factory/mcp.json mcpServers.deja         ~/.factory/skills/deja
  kiro         ~/.kiro/settings/mcp.json mcpServers.deja   ~/.kiro/skills/deja
  kimi         ~/.kimi/mcp.json mcpServers.deja            ~/.kimi/skills/deja
               (Kimi Code: ~/.kimi-code/mcp.json and ~/.kimi-code/skills/deja)
  crush        ~/.config/crush/crush.json mcp.deja         ~/.agents/skills/deja
  antigravity  ~/.gemini/antigravity/mcp_config.json mcpServers.deja
                                                           -
  goose        ~/.config/goose/config.yaml extensions.deja ~/.agents/skills/deja
  hermes       ~/.hermes/config.yaml mcp_servers.deja      ~/.hermes/skills/deja
  zed          ~/.config/zed/settings.json context_servers.deja
                                                           ~/.agents/skills/deja

--hooks (the agent waits at most 5 s; deja answers sooner or says nothing):

  claude-code  ~/.claude/settings.json  UserPromptSubmit, SessionStart,
               PreToolUse (Edit, MultiEdit, Write, NotebookEdit, Bash)
  codex        $CODEX_HOME/hooks.json   UserPromptSubmit, SessionStart,
               PreToolUse (Bash, apply_patch)
  gemini       ~/.gemini/settings.json  BeforeAgent, SessionStart
  qwen         ~/.qwen/settings.json    UserPromptSubmit, SessionStart,
               PreToolUse (edit, write_file, run_shell_command)
  cline        ~/Documents/Cline/Hooks/  TaskStart, UserPromptSubmit,
               PreToolUse: an executable file each (turn on "Enable
               Hooks" in Cline's settings)
  opencode     ~/.config/opencode/plugins/deja.js, a plugin that sends
               a session's start, each prompt and each tool to deja hook
               and puts the answer in the next model call's system prompt
  pi           ~/.pi/agent/extensions/deja.ts, an extension that sends a
               session's start and each prompt to deja hook and hands
               the answer to pi as a message
  factory      ~/.factory/hooks.json (settings.json when there is one
               and no hooks.json)  UserPromptSubmit, SessionStart; droid
               asks you to review changed hooks in /hooks

--guidance: ~/.claude/CLAUDE.md, $CODEX_HOME/AGENTS.md,
~/.gemini/GEMINI.md, ~/.qwen/QWEN.md, ~/.config/opencode/AGENTS.md,
~/.pi/agent/AGENTS.md, ~/.config/amp/AGENTS.md,
~/.config/goose/.goosehints, ~/.config/crush/CRUSH.md,
~/.hermes/AGENTS.md, ~/.config/zed/AGENTS.md, for Cline
~/Documents/Cline/Rules/deja.md and for Kiro ~/.kiro/steering/deja.md.

With no AGENT, every agent deja finds installed: its config file or
directory in your home, or its program on PATH (for aider also a
.aider.conf.yml or chat history in the project). An agent that is not
installed is never given a config unless you name it. Each file is
edited as text: every other entry, comment and the layout stay, and so
does the file's mode. The old file is kept beside it as FILE.deja-backup,
and the new one replaces it atomically. Installing twice changes nothing.

Nothing is changed without your say: on a terminal deja shows each
file's diff and asks before it writes; --yes writes without asking, and
off a terminal (a script, a pipe) nothing is written without it: deja
prints the plan and exits 2. --uninstall takes out exactly what install
put in (give it the same --hooks and --guidance), so every file comes
back byte for byte: a file install created is removed, with the
directories it made for it, and no backup is left behind; --dry-run
prints the unified diff and writes nothing.

--project (or --project DIR) wires deja into the project's own files
instead of yours: .mcp.json (claude-code), .codex/config.toml (codex,
read in trusted projects), .gemini/settings.json, .qwen/settings.json,
.cursor/mcp.json, opencode.json, .factory/mcp.json, .kiro/settings/mcp.json,
the hooks files under .claude, .codex, .gemini, .qwen, .cursor and .factory,
and the skills under .claude/skills, .agents/skills, .qwen/skills,
.github/skills, .factory/skills, .kiro/skills and .kimi/skills. Copilot
CLI, Cline, pi and Amp get only the skill there; guidance is written only
to your own files.

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
	var dryRun, uninstall, asJSON, hooks, yes, skills, guidance bool
	var project string
	cmd := &cobra.Command{
		Use:       "install [AGENT...]",
		Short:     "Wire deja into your agents: MCP, hooks, skill and guidance (claude-code, codex, gemini, goose and 15 more)",
		Long:      installLong,
		ValidArgs: install.Agents,
		RunE: func(cmd *cobra.Command, args []string) error {
			env, err := installEnv(cmd)
			if err != nil {
				return err
			}
			if cmd.Flags().Changed("project") {
				if project == "." {
					project = "" // the project you are in: its git root
				}
				if env.Project, err = projectDir(project); err != nil {
					return exitError{code: 2, msg: err.Error()}
				}
				if guidance {
					return exitError{code: 2, msg: "--guidance writes the user's guidance files, not a project's: drop --project or --guidance"}
				}
				env.ProjectScope = true
			}
			targets, err := install.Wiring(env, args, install.What{Hooks: hooks, Skills: skills, Guidance: guidance, Uninstall: uninstall})
			if err != nil {
				return exitError{code: 2, msg: err.Error()}
			}
			if len(targets) == 0 && len(args) > 0 {
				return exitError{code: 1, msg: "nothing to wire into " + strings.Join(args, ", ") + " with these flags (pi has no MCP: it takes deja's skill, and --guidance)"}
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
						words.Count(pending, "change"))}
				}
				printInstall(io, shown, true)
				fmt.Fprintf(io.Err, "Write %s? [y/N] ", words.Count(pending, "change"))
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
					if err == nil && c.Existed && c.Action == "add" {
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
	cmd.Flags().BoolVar(&hooks, "hooks", false, "also register 'deja hook AGENT' at each moment the agent offers (claude-code, codex, gemini, qwen; with --uninstall: take them out)")
	cmd.Flags().StringVar(&project, "project", "", "wire deja into the project's own config files instead of yours (DIR, or the project you are in)")
	cmd.Flags().Lookup("project").NoOptDefVal = "."
	cmd.Flags().BoolVar(&skills, "skills", true, "also write deja's SKILL.md where the agent has skills (--skills=false leaves them out)")
	cmd.Flags().BoolVar(&guidance, "guidance", false, "also add a marked block about deja to each agent's user-level guidance file (CLAUDE.md, AGENTS.md, GEMINI.md, …)")
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
	env := install.Env{Home: home, Deja: bin, ConfigDir: os.Getenv("XDG_CONFIG_HOME"), CodexHome: os.Getenv("CODEX_HOME"),
		Path: os.Getenv("PATH"), Getenv: os.Getenv}
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
