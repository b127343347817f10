package main

import (
	"github.com/spf13/cobra"

	"github.com/deja-dev/deja/config"
)

const rootLong = `deja turns the chat histories your coding agents leave on disk into memory
you can search by meaning. It reads the histories of these agents:

  HARNESSES

It splits them into sessions and turns and indexes them locally: recall finds
a past turn from a paraphrase, and exact file paths, commands and
identifiers through a keyword index. Everything runs offline; when Ollama is
running deja embeds with it, otherwise with its built-in embedder.

Start here:
  deja sources              where deja looks for each agent's histories, and why
  deja index                index every history deja finds (again: only what is new)
  deja recall "that tenant bug"
                            the past turns that match, best first
  deja recall query.go      the turns that touched a file (or ran a command)
  deja show SESSION/TURN    one past turn, whole
  deja doctor               what to check when something looks wrong

Interactive: 'deja find' (or 'deja' alone on a terminal) searches as you
type; Enter prints the turn, so deja show "$(deja find)" opens it.

For agents: 'deja install' (wires deja into the agents it finds: MCP,
hooks, a skill; it shows the plan and asks first), 'deja mcp' (an MCP
server on stdio), 'deja serve' (MCP and JSON over local HTTP), 'deja
aider' (aider with deja's context file), and --json on every command that
prints results.

Shell completion: 'deja completion bash > ~/.local/share/bash-completion/completions/deja',
'deja completion zsh > "${fpath[1]}/_deja"', 'deja completion fish >
~/.config/fish/completions/deja.fish'; 'deja completion SHELL --help' says
more.

Configuration comes from defaults < ~/.config/deja/config.toml
(XDG_CONFIG_HOME honoured) < DEJA_* environment variables (key a.b is
DEJA_A_B) < flags. See 'deja config' for the resolved values.

Exit codes:
  0    done; something was found
  1    nothing found (recall, sessions; show, forget or resume of no such
       session), as grep and rg
  2    a usage mistake (the usage line follows) or an error, said on stderr
       with what to do next; deja find without a terminal to draw on
  3    deja resume refused (it says why)
  127  deja aider without aider on PATH
  130  deja find quit without choosing; interrupted (SIGINT)
  143  terminated (SIGTERM)`

func newRootCmd(io *IO) *cobra.Command {
	root := &cobra.Command{
		Use:           "deja",
		Short:         "Search your coding agents' past conversations by meaning",
		Long:          withHarnesses(rootLong),
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       versionString(),
		// 'deja' alone on a terminal searches interactively; anywhere
		// else it prints this help.
		RunE: func(cmd *cobra.Command, args []string) error {
			if io.OutTTY && io.ErrTTY {
				return runFind(cmd, io, findOptions{limit: 20}, "")
			}
			return cmd.Help()
		},
	}
	root.SetVersionTemplate(versionLine())
	root.SetOut(io.Out)
	root.SetErr(io.Err)
	root.SetIn(io.In)
	root.AddCommand(
		newVersionCmd(io),
		newConfigCmd(io),
		newSourcesCmd(io),
		newParseCmd(io),
		newIndexCmd(io),
		newRecallCmd(io),
		newFindCmd(io),
		newSessionsCmd(io),
		newShowCmd(io),
		newForgetCmd(io),
		newStatusCmd(io),
		newMcpCmd(io),
		newServeCmd(io),
		newContextCmd(io),
		newAiderCmd(io),
		newResumeCmd(io),
		newDoctorCmd(io),
		newInstallCmd(io),
		newHookCmd(io),
		newTeamCmd(io),
		newBlameCmd(io),
		newHowCmd(io),
		newFixCmd(io),
		newFrictionCmd(io),
		newRestoreCmd(io),
		newRememberCmd(io),
		newMarkCmd(io),
		newHandoffCmd(io),
	)
	addColorFlag(root, io)
	markUsageErrors(root)
	addCompletions(root)
	return root
}

// loadConfig resolves configuration with the given command's flags bound to
// their keys (flag name → key).
func loadConfig(cmd *cobra.Command, bind map[string]string) (config.Config, error) {
	flags := config.Flags{}
	for name, key := range bind {
		if f := cmd.Flags().Lookup(name); f != nil && f.Changed {
			flags[key] = f
		}
	}
	return config.Load(flags)
}
