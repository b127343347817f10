package main

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"
)

func newConfigCmd(io *IO) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "config",
		Short: "Show the resolved configuration and where it came from",
		Long: `Show the configuration deja would use, after defaults, the config file
(~/.config/deja/config.toml, XDG_CONFIG_HOME honoured), DEJA_* environment
variables and flags. Example config.toml:

  [embed]
  provider = "builtin"    # auto | ollama | builtin
  model = "nomic-embed-text"

  [ollama]
  host = "http://127.0.0.1:11434"`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := loadConfig(cmd, nil)
			if err != nil {
				return err
			}
			if asJSON {
				enc := json.NewEncoder(io.Out)
				enc.SetIndent("", "  ")
				return enc.Encode(map[string]any{
					"config_file":         c.File,
					"config_dir":          c.ConfigDir,
					"data_dir":            c.DataDir,
					"embed.provider":      c.Embed.Provider,
					"embed.model":         c.Embed.Model,
					"embed.batch":         c.Embed.Batch,
					"embed.timeout":       c.Embed.Timeout.String(),
					"ollama.host":         c.Ollama.Host,
					"chunk.budget":        c.Chunk.Budget,
					"recall.mode":         c.Recall.Mode,
					"recall.limit":        c.Recall.Limit,
					"serve.autostart":     c.Serve.Autostart,
					"serve.idle":          c.Serve.Idle.String(),
					"hook.prompt_tokens":  c.Hook.PromptTokens,
					"hook.start_tokens":   c.Hook.StartTokens,
					"hook.tool_tokens":    c.Hook.ToolTokens,
					"hook.compact_tokens": c.Hook.CompactTokens,
				})
			}
			file := c.File
			if file == "" {
				file = "(none; " + c.ConfigDir + "/config.toml does not exist)"
			}
			fmt.Fprintf(io.Out, "config file     %s\n", file)
			fmt.Fprintf(io.Out, "data dir        %s\n", c.DataDir)
			fmt.Fprintf(io.Out, "embed.provider  %s\n", c.Embed.Provider)
			fmt.Fprintf(io.Out, "embed.model     %s\n", c.Embed.Model)
			fmt.Fprintf(io.Out, "embed.batch     %d\n", c.Embed.Batch)
			fmt.Fprintf(io.Out, "embed.timeout   %s\n", c.Embed.Timeout)
			fmt.Fprintf(io.Out, "ollama.host     %s\n", c.Ollama.Host)
			fmt.Fprintf(io.Out, "chunk.budget    %d\n", c.Chunk.Budget)
			fmt.Fprintf(io.Out, "recall.mode     %s\n", c.Recall.Mode)
			fmt.Fprintf(io.Out, "recall.limit    %d\n", c.Recall.Limit)
			fmt.Fprintf(io.Out, "serve.autostart %t\n", c.Serve.Autostart)
			fmt.Fprintf(io.Out, "serve.idle      %s\n", c.Serve.Idle)
			fmt.Fprintf(io.Out, "hook.prompt_tokens  %d\n", c.Hook.PromptTokens)
			fmt.Fprintf(io.Out, "hook.start_tokens   %d\n", c.Hook.StartTokens)
			fmt.Fprintf(io.Out, "hook.tool_tokens    %d\n", c.Hook.ToolTokens)
			fmt.Fprintf(io.Out, "hook.compact_tokens %d\n", c.Hook.CompactTokens)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}
