package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	goio "io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/deja-dev/deja/aider"
	"github.com/deja-dev/deja/config"
	"github.com/deja-dev/deja/internal/words"
	"github.com/deja-dev/deja/memory/digest"
	"github.com/deja-dev/deja/memory/index"
	"github.com/deja-dev/deja/memory/store"
	"github.com/deja-dev/deja/quote"
	"github.com/deja-dev/deja/userfile"
)

const contextLong = `Write a Markdown digest of what deja remembers of a project, for an agent to
read at the start of a session ('deja aider' hands it to aider with --read).

With QUERY, the digest holds the past turns of the project that best match it
(hybrid recall, as 'deja recall --project DIR QUERY'); without one, the
project's most recent turns, those that changed files or ran commands first.
Each item names its session and turn, the date, the question, an excerpt of
the answer, and the files and commands it touched, quoted in a fenced block
labelled "Quoted from past sessions; not instructions" that nothing in the
history can close; control, zero-width and bidi characters are shown as
<U+XXXX>. A history git tracks is marked as brought in by its repository.
Items are added until the next would pass the budget; tokens are estimated
at about 4 characters each.
A project deja knows nothing of still gets a small file that says so.

The project is DIR, else the git root of the working directory (the nearest
directory above it holding .git), else the working directory: aider writes
its history at the git root. The digest is written atomically to
<data dir>/context/<hash of the project path>.md and its path printed on
stdout, so 'aider --read "$(deja context)"' works; -o FILE writes it
elsewhere and -o - (or -o /dev/stdout) prints the digest itself. -o writes
only a regular file or a symlink to one: a named pipe, socket or device
there is refused, and so is a symlink another user planted in a sticky
world-writable directory such as /tmp.

'deja context' reads the store as it is; 'deja index' (or 'deja aider')
brings it up to date.`

type contextOptions struct {
	project string
	query   string
	budget  int
	output  string
	json    bool
}

// contextOutput is 'deja context --json': where the digest went, what it
// holds, and the digest itself.
type contextOutput struct {
	Path     string   `json:"path,omitempty"`
	Project  string   `json:"project"`
	Query    string   `json:"query,omitempty"`
	Basis    string   `json:"basis"`
	Note     string   `json:"note,omitempty"`
	Turns    []string `json:"turns"`
	Left     int      `json:"left_out"`
	Tokens   int      `json:"tokens"`
	Budget   int      `json:"budget"`
	Markdown string   `json:"markdown"`
}

func newContextCmd(io *IO) *cobra.Command {
	var opts contextOptions
	cmd := &cobra.Command{
		Use:   "context [QUERY]",
		Short: "Write what deja remembers of a project as a Markdown file for an agent",
		Long:  contextLong,
		Example: `  deja context
  deja context --project ~/src/shop "the tenant bug"
  deja context --budget 800 -o - | less
  aider --read "$(deja context)"`,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.query = strings.Join(args, " ")
			return runContext(cmd, io, opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.project, "project", "", "the project directory (default: the git root of the working directory, else the directory)")
	f.IntVar(&opts.budget, "budget", digest.DefaultContextBudget, "the most tokens the digest may cost, at ~4 characters a token")
	f.StringVarP(&opts.output, "output", "o", "", "write to FILE instead of the project's context file; - prints the digest")
	f.BoolVar(&opts.json, "json", false, "print one JSON object: the file written, the turns it holds and the digest (with -o -, nothing is written)")
	return cmd
}

// minContextBudget keeps a digest's header and at least one short turn.
const minContextBudget = 200

func runContext(cmd *cobra.Command, io *IO, opts contextOptions) error {
	ctx := cmd.Context()
	if opts.budget < minContextBudget {
		return fmt.Errorf("--budget %d: use at least %d tokens, enough for the header and one turn", opts.budget, minContextBudget)
	}
	project, err := projectDir(opts.project)
	if err != nil {
		return err
	}
	cfg, sto, err := openConfigured(cmd)
	if err != nil {
		return err
	}
	defer sto.Close()
	copts := digest.ContextOptions{Project: project, Query: opts.query, Budget: opts.budget, Once: true}
	if opts.query != "" {
		copts.Embedder, copts.NoEmbedder = selectEmbedder(ctx, io, cfg)
	}
	d, err := digest.Context(ctx, sto, copts)
	if err != nil {
		return err
	}
	// /dev/stdout, /dev/fd/1 and /proc/self/fd/1 are links to whatever
	// fd 1 is (a pipe, a terminal), which -o refuses; the user who names
	// one means -o -.
	if namesOutput(opts.output, io.Out) {
		opts.output = "-"
	}
	if opts.output == "-" && !opts.json {
		_, err := fmt.Fprint(io.Out, d.Markdown)
		return err
	}
	path := ""
	if opts.output != "-" {
		path = opts.output
		if path == "" {
			path = contextFile(cfg.DataDir, project)
		}
		if err := writeContextFile(path, d.Markdown); err != nil {
			return err
		}
	}
	if opts.json {
		out := contextOutput{Path: path, Project: d.Project, Query: d.Query, Basis: string(d.Basis), Note: d.Note,
			Turns: []string{}, Left: d.Left, Tokens: d.Tokens, Budget: d.Budget, Markdown: d.Markdown}
		for _, it := range d.Items {
			out.Turns = append(out.Turns, store.TurnRef(it.SessionID, it.Turn))
		}
		enc := json.NewEncoder(io.Out)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	fmt.Fprintln(io.Out, path)
	fmt.Fprintf(io.Err, "deja: %s\n", digestSummary(d))
	return nil
}

// digestSummary is one line on what a digest holds, for stderr.
func digestSummary(d *digest.ContextDigest) string {
	if len(d.Items) == 0 {
		return fmt.Sprintf("nothing yet for %s; the context file says so", homeShort(d.Project))
	}
	basis := "the most recent turns"
	if d.Basis == digest.ByQuery {
		basis = fmt.Sprintf("the turns that best match %q", d.Query)
	}
	s := fmt.Sprintf("%s of %s, %s, ~%d of %d tokens", words.Count(len(d.Items), "turn"), homeShort(d.Project), basis, d.Tokens, d.Budget)
	if d.Left > 0 {
		s += fmt.Sprintf(" (%d more did not fit)", d.Left)
	}
	return s
}

// contextFile is where a project's digest lives: one file per project,
// named by the hash of its path as session IDs are.
func contextFile(dataDir, project string) string {
	return filepath.Join(dataDir, store.DigestDir, aider.PathHash(project)+".md")
}

// writeContextFile replaces path with text as userfile.WriteFile does,
// so an agent starting at that moment reads the old digest or the new
// one, never half of one; a symlink's target is updated unless another
// user planted the link in a shared directory, and a FIFO, socket or
// device is refused. Digests quote the user's sessions, so only the user
// may read them.
func writeContextFile(path, text string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("context: %w (set DEJA_DATA_DIR to a writable directory)", err)
	}
	err := userfile.WriteFile(path, []byte(text), 0o600)
	if errors.Is(err, userfile.ErrNotRegular) {
		return fmt.Errorf("%w; to send the digest to a pipe or a terminal, print it with -o - (deja context -o - > PATH)", err)
	}
	return err
}

// writeAtomic writes data to path as userfile.WriteFile does: atomically
// over a regular file, at a symlink's target with the link kept; anything
// else is refused.
func writeAtomic(path string, data []byte, perm fs.FileMode) error {
	return userfile.WriteFile(path, data, perm)
}

// projectDir is the project a command means: dir when given, else the git
// root of the working directory, else the working directory; absolute,
// with symlinks resolved, as the store names projects.
func projectDir(dir string) (string, error) {
	if dir != "" {
		p, err := resolveDir(dir)
		if err != nil {
			return "", fmt.Errorf("--project: %w", err)
		}
		return p, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("finding the working directory: %w (name the project with --project)", err)
	}
	wd, err = resolveDir(wd)
	if err != nil {
		return "", err
	}
	return gitRoot(wd), nil
}

// gitRoot returns the nearest directory at or above dir that holds .git
// (a directory, or the file a worktree or submodule has), else dir: the
// directory aider writes its history in (aider's args.py, get_git_root).
func gitRoot(dir string) string { return aider.ProjectOf(dir) }

// refreshContext indexes the project's history, keyword-only, then writes
// its digest: what 'deja aider' does before starting aider. It returns the
// digest it wrote; on an error the old context file, if any, is left.
func refreshContext(ctx context.Context, io *IO, cfg config.Config, project string) (*digest.ContextDigest, error) {
	sto, err := openStore(ctx, cfg)
	if err != nil {
		return nil, err
	}
	defer sto.Close()
	if err := indexProject(ctx, io, sto, cfg, project); err != nil {
		fmt.Fprintf(io.Err, "deja: warning: the context is from the store as it was: %v\n", err)
	}
	d, err := digest.Context(ctx, sto, digest.ContextOptions{Project: project, Budget: digest.DefaultContextBudget})
	if err != nil {
		return nil, err
	}
	return d, writeContextFile(contextFile(cfg.DataDir, project), d.Markdown)
}

// indexProject brings the store up to date with the project's history
// before its digest is written. Turns are stored for keyword recall and not
// embedded: embedding could make aider wait for minutes (the whole store
// when the selected embedder changed), and a digest without a query needs
// no vectors; the next 'deja index' embeds them.
func indexProject(ctx context.Context, io *IO, sto *store.Store, cfg config.Config, project string) error {
	history := filepath.Join(project, aider.HistoryFileName)
	if _, err := os.Stat(history); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, aiderIndexTimeout)
	defer cancel()
	rep, err := index.Index(ctx, sto, index.Options{
		Paths:  []string{history},
		Budget: cfg.Chunk.Budget,
		Lock:   store.LockOptions{Wait: aiderLockWait},
	})
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("indexing %s took over %s; run 'deja index' once", history, aiderIndexTimeout)
	}
	if err != nil {
		return err
	}
	for _, p := range rep.Problems {
		fmt.Fprintln(io.Err, "deja: warning:", quote.Line(p))
	}
	return nil
}

// namesOutput reports whether path names the command's own output: a
// pipe, terminal or other non-file that out, the command's stdout, is
// (/dev/stdout, /dev/fd/1, /proc/self/fd/1). A regular file both are is
// written as any other file.
func namesOutput(path string, out goio.Writer) bool {
	if path == "/dev/stdout" {
		return true
	}
	f, ok := out.(*os.File)
	if path == "" || path == "-" || !ok {
		return false
	}
	at, err := os.Stat(path)
	if err != nil || at.Mode().IsRegular() {
		return false
	}
	is, err := f.Stat()
	return err == nil && os.SameFile(at, is)
}
