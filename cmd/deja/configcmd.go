package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/deja-dev/deja/config"
	"github.com/deja-dev/deja/embed"
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
  host = "http://127.0.0.1:11434"

Each value is shown with where it came from: a flag, a DEJA_* variable
(DEJA_RECALL_LIMIT for recall.limit), the config file, or the default.
A harness's keys (<name>.enabled, <name>.dirs) are listed when set. A key
of the config file deja does not know is named in a warning. The keys:

` + wrapWords(strings.Join(config.Keys(), ", ")+".", 72, "  "),
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := loadConfig(cmd, nil)
			if err != nil {
				return err
			}
			host, hostFrom := c.Ollama.Host, c.Sources["ollama.host"]
			if host == "" {
				var set bool
				if host, set = embed.OllamaHostFromEnv(); set {
					hostFrom = "env OLLAMA_HOST"
				} else {
					hostFrom = "Ollama's default"
				}
			}
			rows := []struct {
				key   string
				value any
			}{
				{"embed.provider", c.Embed.Provider}, {"embed.model", c.Embed.Model}, {"embed.batch", c.Embed.Batch},
				{"embed.timeout", c.Embed.Timeout.String()}, {"ollama.host", host}, {"chunk.budget", c.Chunk.Budget},
				{"recall.mode", c.Recall.Mode}, {"recall.limit", c.Recall.Limit}, {"serve.autostart", c.Serve.Autostart},
				{"serve.idle", c.Serve.Idle.String()}, {"hook.prompt_tokens", c.Hook.PromptTokens},
				{"hook.start_tokens", c.Hook.StartTokens}, {"hook.tool_tokens", c.Hook.ToolTokens},
				{"hook.compact_tokens", c.Hook.CompactTokens},
			}
			from := func(key string) string {
				if key == "ollama.host" {
					return hostFrom
				}
				return c.Sources[key]
			}
			// A harness switched off or moved is listed, with where that
			// came from: left out, a user could not see why its sessions
			// are missing. The defaults of all of them would bury the rest.
			for _, name := range config.HarnessNames {
				h := c.Harness(name)
				if src := from(name + ".enabled"); src != "" && src != "default" {
					rows = append(rows, struct {
						key   string
						value any
					}{name + ".enabled", h.Enabled})
				}
				if src := from(name + ".dirs"); src != "" && src != "default" {
					rows = append(rows, struct {
						key   string
						value any
					}{name + ".dirs", append([]string{}, h.Dirs...)})
				}
			}
			if len(c.Unknown) > 0 {
				fmt.Fprintf(io.Err, "deja: warning: %s has keys deja does not know, and ignores: %s ('deja config --help' shows the known ones)\n",
					c.File, strings.Join(c.Unknown, ", "))
			}
			if asJSON {
				values, sources := map[string]any{}, map[string]string{}
				for _, r := range rows {
					values[r.key], sources[r.key] = r.value, from(r.key)
				}
				values["config_file"], values["config_dir"], values["data_dir"] = c.File, c.ConfigDir, c.DataDir
				sources["data.dir"] = from("data.dir")
				values["sources"], values["unknown_keys"] = sources, append([]string{}, c.Unknown...)
				enc := json.NewEncoder(io.Out)
				enc.SetIndent("", "  ")
				return enc.Encode(values)
			}
			file := c.File
			if file == "" {
				file = "(none; " + c.ConfigDir + "/config.toml does not exist)"
			}
			tw := tabwriter.NewWriter(io.Out, 0, 0, 2, ' ', 0)
			fmt.Fprintf(tw, "config file\t%s\n", file)
			fmt.Fprintf(tw, "data dir\t%s\t(%s)\n", c.DataDir, from("data.dir"))
			for _, r := range rows {
				v := r.value
				if dirs, ok := v.([]string); ok {
					v = strings.Join(dirs, string(filepath.ListSeparator))
				}
				fmt.Fprintf(tw, "%s\t%v\t(%s)\n", r.key, v, from(r.key))
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// wrapWords breaks text into lines of at most width characters, each
// after indent.
func wrapWords(text string, width int, indent string) string {
	var b strings.Builder
	line := indent
	for _, w := range strings.Fields(text) {
		if len(line) > len(indent) && len(line)+1+len(w) > width {
			b.WriteString(line + "\n")
			line = indent
		}
		if len(line) > len(indent) {
			line += " "
		}
		line += w
	}
	b.WriteString(line)
	return b.String()
}
