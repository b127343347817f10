package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/deja-dev/deja/aider"
	"github.com/deja-dev/deja/config"
	"github.com/deja-dev/deja/embed"
	"github.com/deja-dev/deja/memory"
)

// openStore opens the store in the configured data directory.
func openStore(ctx context.Context, cfg config.Config) (*memory.Store, error) {
	return memory.Open(ctx, cfg.DataDir)
}

// openConfigured loads the configuration and opens its store, as most
// commands begin; the caller closes the store.
func openConfigured(cmd *cobra.Command) (config.Config, *memory.Store, error) {
	cfg, err := loadConfig(cmd, nil)
	if err != nil {
		return cfg, nil, err
	}
	store, err := openStore(cmd.Context(), cfg)
	return cfg, store, err
}

// selectEmbedder returns the configured embedder, or nil and why there is
// none. Select's note (which embedder answers, and why) goes to stderr.
func selectEmbedder(ctx context.Context, io *IO, cfg config.Config) (embed.Embedder, string) {
	emb, note, err := embed.Select(ctx, embed.Options{
		Provider: cfg.Embed.Provider,
		Model:    cfg.Embed.Model,
		Host:     cfg.Ollama.Host,
		Batch:    cfg.Embed.Batch,
		Timeout:  cfg.Embed.Timeout,
	})
	if note != "" {
		fmt.Fprintln(io.Err, note)
	}
	if err != nil {
		return nil, err.Error()
	}
	return emb, ""
}

// historyPaths expands the command line into history files: a file as
// given, a directory into the aider histories below it.
func historyPaths(args []string) ([]string, []string) {
	var paths, problems []string
	for _, a := range args {
		abs, err := aider.ResolvePath(a)
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		fi, err := os.Stat(abs)
		if err != nil || !fi.IsDir() {
			// A missing file is reported by the index, with the others.
			paths = append(paths, abs)
			continue
		}
		found := 0
		filepath.WalkDir(abs, func(p string, d os.DirEntry, err error) error {
			if err != nil {
				problems = append(problems, fmt.Sprintf("%s: %v", p, err))
				return nil
			}
			if d.IsDir() {
				name := d.Name()
				if p != abs && (name == ".git" || name == "node_modules" || name == "vendor" || name == ".venv" || name == "__pycache__") {
					return filepath.SkipDir
				}
				return nil
			}
			if isHistoryName(d.Name()) {
				paths = append(paths, p)
				found++
			}
			return nil
		})
		if found == 0 {
			problems = append(problems, fmt.Sprintf("%s: no aider history (%s) in it", a, aider.HistoryFileName))
		}
	}
	return paths, problems
}

// isHistoryName accepts aider's default name and the names people give
// copies of it (project.aider.chat.history.md).
func isHistoryName(name string) bool {
	return name == aider.HistoryFileName || strings.HasSuffix(name, aider.HistoryFileName)
}

// homeShort writes a path under the home directory with ~.
func homeShort(p string) string {
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return p
	}
	if p == home {
		return "~"
	}
	if strings.HasPrefix(p, home+string(filepath.Separator)) {
		return "~" + p[len(home):]
	}
	return p
}

// oneLine shortens text to n runes on one line, for lists.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return strings.TrimSpace(string(r[:n-1])) + "…"
}

// resolveDir makes a --project directory absolute with symlinks resolved,
// as the store names projects.
func resolveDir(dir string) (string, error) {
	return aider.ResolvePath(dir)
}
