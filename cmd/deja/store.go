package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/deja-dev/deja/aider"
	"github.com/deja-dev/deja/config"
	"github.com/deja-dev/deja/embed"
	"github.com/deja-dev/deja/memory/store"
	"github.com/deja-dev/deja/quote"
	"github.com/deja-dev/deja/userfile"
)

// openStore opens the store in the configured data directory.
func openStore(ctx context.Context, cfg config.Config) (*store.Store, error) {
	return store.Open(ctx, cfg.DataDir)
}

// openConfigured loads the configuration and opens its store, as most
// commands begin; the caller closes the store.
func openConfigured(cmd *cobra.Command) (config.Config, *store.Store, error) {
	cfg, err := loadConfig(cmd, nil)
	if err != nil {
		return cfg, nil, err
	}
	sto, err := openStore(cmd.Context(), cfg)
	return cfg, sto, err
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
	if note != "" && io.notice(cfg.DataDir, "embedder", note) {
		fmt.Fprintln(io.Err, note)
	}
	if err != nil {
		return nil, err.Error()
	}
	return emb, ""
}

// notice reports whether a notice of this kind is to be shown: with -v
// always, with --quiet never, else when it differs from the last one shown
// (kept in the data directory), so "embedding with …" is said once per
// change, not before every result.
func (io *IO) notice(dataDir, kind, text string) bool {
	switch {
	case io.Quiet:
		return false
	case io.Verbose:
		return true
	}
	path := filepath.Join(dataDir, "last-"+kind+".notice")
	if old, err := os.ReadFile(path); err == nil && string(old) == text {
		return false
	}
	if fi, err := os.Stat(dataDir); err == nil && fi.IsDir() {
		tmp := path + ".tmp"
		if os.WriteFile(tmp, []byte(text), 0o600) == nil {
			os.Rename(tmp, path)
		}
	}
	return true
}

// historyPaths expands the command line into history files: a file as
// given, a directory into the aider histories in it and up to walkDepth
// levels below, and the other harnesses' files there (isTranscriptName)
// that a harness other than aider claims (claims). Every path is resolved as the store names
// histories, and listed once, so a history reached through a symlink is
// not indexed twice.
func historyPaths(args []string, claims func(path string) bool) ([]string, []string) {
	var paths, problems []string
	seen := map[string]bool{}
	add := func(p string) {
		if !seen[p] {
			seen[p] = true
			paths = append(paths, p)
		}
	}
	for _, a := range args {
		abs, err := userfile.ResolvePath(a)
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		fi, err := os.Stat(abs)
		if err != nil || !fi.IsDir() {
			// A missing file is reported by the index, with the others.
			add(abs)
			continue
		}
		w := historyWalk{add: add, claims: claims}
		w.walk(abs, 0)
		problems = append(problems, w.problems...)
		if w.found == 0 {
			problems = append(problems, fmt.Sprintf("%s: no aider history (%s) in it or two levels below it, and no transcript in it or four levels below it", a, aider.HistoryFileName))
		}
	}
	return paths, problems
}

// walkDepth is how many levels below a directory on the command line
// 'deja index' looks for aider histories, as discovery searches a root:
// aider writes a history at a project's top, and 'deja index ~' must not
// read the whole home.
const walkDepth = 2

// transcriptDepth is how many levels below it 'deja index' looks for the
// other harnesses' transcripts, which their agents file deeper: Codex
// under sessions/YYYY/MM/DD, Claude Code's subagents under
// projects/PROJECT/SESSION/subagents, so that 'deja index ~/.codex' or
// 'deja index ~/.claude' (or a copy of either) finds them all.
const transcriptDepth = 4

// historyWalk collects the histories below one directory.
type historyWalk struct {
	add      func(path string)
	claims   func(path string) bool
	found    int
	problems []string
}

// walk adds the histories in dir and walks its subdirectories while depth
// is below transcriptDepth (aider histories count to walkDepth).
// Symlinked directories are followed, as discovery
// follows them; the depth limit keeps a link loop finite. Hidden
// directories, node_modules, vendor and __pycache__ are skipped: aider
// never writes a history there, and they are where the big trees are.
func (w *historyWalk) walk(dir string, depth int) {
	// ReadDir returns what it read before an error, so a partly readable
	// directory is still searched.
	entries, err := os.ReadDir(dir)
	if err != nil {
		w.problems = append(w.problems, fmt.Sprintf("%s: %v", dir, err))
	}
	for _, e := range entries {
		name := e.Name()
		p := filepath.Join(dir, name)
		info, err := os.Stat(p)
		if err != nil {
			if isHistoryName(name) {
				w.problems = append(w.problems, fmt.Sprintf("%s: %v", p, err))
			}
			continue
		}
		if !info.IsDir() {
			if (depth <= walkDepth && isHistoryName(name)) || (isTranscriptName(name) && w.claims != nil && w.claims(p)) {
				w.addResolved(p)
			}
			continue
		}
		if depth < transcriptDepth && !skippedDir(name) {
			w.walk(p, depth+1)
		}
	}
}

func (w *historyWalk) addResolved(p string) {
	resolved, err := userfile.ResolvePath(p)
	if err != nil {
		w.problems = append(w.problems, err.Error())
		return
	}
	w.add(resolved)
	w.found++
}

func skippedDir(name string) bool {
	return strings.HasPrefix(name, ".") || name == "node_modules" || name == "vendor" || name == "__pycache__"
}

// isHistoryName accepts aider's default name and the names people give
// copies of it (project.aider.chat.history.md).
func isHistoryName(name string) bool {
	return name == aider.HistoryFileName || strings.HasSuffix(name, aider.HistoryFileName)
}

// isTranscriptName accepts the names the harnesses other than aider give
// their histories (JSONL transcripts, JSON chats and task files, SQLite
// stores), which a harness must then claim: Gemini CLI's session-*.json,
// Cline's *.messages.json and api_conversation_history.json, OpenCode's
// opencode.db and Cursor's state.vscdb were found by discovery only, and
// 'deja index DIR' passed them by.
func isTranscriptName(name string) bool {
	for _, ext := range []string{".jsonl", ".jsonl.zst", ".json", ".db", ".vscdb"} {
		if strings.HasSuffix(name, ext) {
			return true
		}
	}
	return false
}

// homeShort writes a path under the home directory with ~, inert
// (quote.Line): it is printed.
func homeShort(p string) string {
	p = quote.Line(p)
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

// oneLine shortens text to n runes on one line, inert (quote.Line), for
// lists.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(quote.Line(s)), " ")
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return strings.TrimSpace(string(r[:n-1])) + "…"
}

// resolveDir makes a --project directory absolute with symlinks resolved,
// as the store names projects.
func resolveDir(dir string) (string, error) {
	return userfile.ResolvePath(dir)
}

// fitTable shortens the cells of rows, a table tabwriter will lay out
// with two spaces between columns, so that no line is wider than width
// (0: no limit). The column tail, the last, is cut at its end first, down
// to tailMin runes; then the column left is cut at its start ("…" and
// its end, as a path's end says most). Rows may be shorter than others.
func fitTable(rows [][]string, width, left int) {
	if width <= 0 || len(rows) == 0 {
		return
	}
	const tailMin, leftMin = 16, 12
	cols := 0
	for _, r := range rows {
		cols = max(cols, len(r))
	}
	widths := make([]int, cols)
	measure := func() int {
		clear(widths)
		for _, r := range rows {
			for i, c := range r {
				widths[i] = max(widths[i], utf8.RuneCountInString(c))
			}
		}
		total := 2 * (cols - 1)
		for _, w := range widths {
			total += w
		}
		return total
	}
	tail := cols - 1
	if over := measure() - width; over > 0 {
		keep := max(tailMin, widths[tail]-over)
		for _, r := range rows {
			if len(r) == cols {
				r[tail] = cutTo(r[tail], keep)
			}
		}
	}
	if over := measure() - width; over > 0 && left != tail {
		keep := max(leftMin, widths[left]-over)
		for _, r := range rows {
			if n := utf8.RuneCountInString(r[left]); n > keep {
				r[left] = "…" + string([]rune(r[left])[n-keep+1:])
			}
		}
	}
}
