package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/deja-dev/deja/config"
	"github.com/deja-dev/deja/memory/digest"
	"github.com/deja-dev/deja/quote"
	"github.com/deja-dev/deja/userfile"
)

const aiderLong = `Start aider with deja's memory of this project, so a new session knows what
the earlier ones did.

deja aider
  1. takes the project to be the git root of the working directory (the
     nearest directory above it holding .git), else the working directory:
     where aider writes .aider.chat.history.md;
  2. lists the project in ~/.config/deja/aider-projects (XDG_CONFIG_HOME
     honoured), once, so 'deja sources' and 'deja index' find its history;
  3. indexes that history and writes the project's context file, as
     'deja context' does (the most recent turns, within 1,500 tokens);
  4. replaces itself with 'aider --read <context file> ARGS...', the aider
     found on PATH, so the terminal and signals are aider's own.

Every argument goes to aider untouched, --help included: 'deja aider --help'
is aider's help, and 'deja help aider' is this one. A failure to refresh the
context is a warning: aider still starts, with the last context file or one
that says deja has nothing yet. Without aider on PATH deja exits with 127,
as a shell does for a command it cannot find.`

// aiderIndexTimeout bounds indexing before aider starts; aiderLockWait how
// long that waits for another deja writing the store. Past either, aider
// starts with the store as it was.
const (
	aiderIndexTimeout = 30 * time.Second
	aiderLockWait     = 2 * time.Second
)

// exitNotFound is the shell's exit code for a command it cannot find.
const exitNotFound = 127

func newAiderCmd(io *IO) *cobra.Command {
	return &cobra.Command{
		Use:   "aider [ARGS...]",
		Short: "Start aider with what deja remembers of this project (--read)",
		Long:  aiderLong,
		Example: `  deja aider
  deja aider --model sonnet src/query.go`,
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runAider(cmd, io, args)
		},
	}
}

func runAider(cmd *cobra.Command, io *IO, args []string) error {
	bin, err := exec.LookPath("aider")
	if err != nil {
		return exitError{code: exitNotFound, msg: "aider is not on PATH: install it (https://aider.chat/docs/install.html) " +
			"or add its directory to PATH; 'deja aider' starts the aider it finds there"}
	}
	project, err := projectDir("")
	if err != nil {
		return err
	}
	if err := recordProject(config.ProjectsFile(), project); err != nil {
		fmt.Fprintf(io.Err, "deja: warning: %v; deja may not find this project's history\n", err)
	}
	file, err := aiderContext(cmd, io, project)
	if err != nil {
		fmt.Fprintf(io.Err, "deja: warning: %v; starting aider without deja's context\n", err)
	}
	argv := []string{"aider"}
	if file != "" {
		argv = append(argv, "--read", file)
	}
	argv = append(argv, args...)
	return execAider(bin, argv)
}

// aiderContext refreshes the project's context file and returns its path.
// Whatever goes wrong, a readable file is left when the data directory is
// writable: the last digest, or one that says deja has nothing yet.
func aiderContext(cmd *cobra.Command, io *IO, project string) (string, error) {
	cfg, cerr := loadConfig(cmd, nil)
	if cerr != nil {
		cfg.DataDir = config.DataDir()
	}
	file := contextFile(cfg.DataDir, project)
	var err error
	if cerr == nil {
		var d *digest.ContextDigest
		if d, err = refreshContext(cmd.Context(), io, cfg, project); err == nil {
			fmt.Fprintf(io.Err, "deja: context for aider: %s\n", digestSummary(d))
			return file, nil
		}
	} else {
		err = cerr
	}
	fmt.Fprintf(io.Err, "deja: warning: refreshing the context failed: %v\n", err)
	if _, serr := os.Stat(file); serr == nil {
		return file, nil
	}
	// The error may name a path or quote a file: made inert like history.
	stub := fmt.Sprintf("# What deja remembers of %s\n\ndeja could not read its memory for this project (%s); 'deja doctor' says why.\nProject: %s\n",
		quote.Line(filepath.Base(project)), quote.Line(err.Error()), quote.Line(project))
	if werr := writeContextFile(file, stub); werr != nil {
		return "", werr
	}
	return file, nil
}

// recordProject adds dir to the project list unless a line already names
// it, keeping the rest of the file (comments included) as it was. The list
// is replaced through a temporary file, so a reader never sees half of it.
func recordProject(file, dir string) error {
	data, _, err := userfile.Read(context.Background(), file, 0)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("reading the project list: %w", err)
	}
	text := string(data)
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line != "" && !strings.HasPrefix(line, "#") && filepath.Clean(line) == dir {
			return nil
		}
	}
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	text += dir + "\n"
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return fmt.Errorf("recording the project: %w", err)
	}
	perm := fs.FileMode(0o644)
	if fi, err := os.Stat(file); err == nil {
		perm = fi.Mode().Perm()
	}
	if err := writeAtomic(file, []byte(text), perm); err != nil {
		return fmt.Errorf("recording the project: %w", err)
	}
	return nil
}
