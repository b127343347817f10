//go:build unix

package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/deja-dev/deja/aider"
	"github.com/deja-dev/deja/memory/store"
)

// childTimeout is how long a deja child may run before the test calls it
// hung; every command here finishes in well under a second.
const childTimeout = 20 * time.Second

// runDeja runs the deja binary (this test binary, which testscript puts on
// PATH as deja) in dir and returns its output and exit code.
func runDeja(t *testing.T, dir string, args ...string) (string, string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), childTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "deja", args...)
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("deja %s hung (killed after %s)\n%s", strings.Join(args, " "), childTimeout, errb.String())
	}
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

func mkfifo(t *testing.T, path string) {
	t.Helper()
	os.MkdirAll(filepath.Dir(path), 0o755)
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestFIFOAtEveryHistoryPath puts a named pipe where a history is read
// from: a file named on the command line, one found in a directory, the
// home history discovery finds, and the project history 'deja aider'
// indexes. Nobody writes to the pipe, so opening it would wait for ever;
// each command must say it skipped it and go on.
func TestFIFOAtEveryHistoryPath(t *testing.T) {
	dataDir := indexedDataDir(t)
	base := filepath.Dir(dataDir)
	home := filepath.Join(base, "home")
	t.Setenv("HOME", home)
	t.Setenv("AIDER_CHAT_HISTORY_FILE", "")
	project := filepath.Join(base, "pipe-project")
	os.MkdirAll(filepath.Join(project, ".git"), 0o755)
	fifo := filepath.Join(project, aider.HistoryFileName)
	mkfifo(t, fifo)
	mkfifo(t, filepath.Join(home, aider.HistoryFileName))

	// Named on the command line, alone, it is all there was to index:
	// exit 2, an error, as for any skipped file. Found by discovery beside nothing
	// else, it is a warning.
	for _, c := range []struct {
		args []string
		code int
	}{{[]string{"index", fifo}, 2}, {[]string{"index", project}, 2}, {[]string{"index"}, 0}} {
		_, stderr, code := runDeja(t, base, c.args...)
		if code != c.code || !strings.Contains(stderr, "is a named pipe, not a regular file") {
			t.Errorf("deja %s: exit %d, stderr %q; want exit %d and a warning that it skipped the FIFO", strings.Join(c.args, " "), code, stderr, c.code)
		}
	}
	_, stderr, code := runDeja(t, base, "parse", fifo)
	if code != 2 || !strings.Contains(stderr, "is a named pipe") {
		t.Errorf("deja parse FIFO: exit %d, stderr %q", code, stderr)
	}
	_, stderr, _ = runDeja(t, base, "sources")
	if !strings.Contains(stderr, "is a named pipe, not a regular file") {
		t.Errorf("deja sources with a FIFO at ~/%s: stderr %q, want a warning", aider.HistoryFileName, stderr)
	}

	// deja aider still starts aider (a stand-in here).
	bin := filepath.Join(base, "bin")
	os.MkdirAll(bin, 0o755)
	os.WriteFile(filepath.Join(bin, "aider"), []byte("#!/bin/sh\necho stand-in aider ran\n"), 0o755)
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	stdout, stderr, code := runDeja(t, project, "aider")
	if code != 0 || !strings.Contains(stdout, "stand-in aider ran") || !strings.Contains(stderr, "named pipe") {
		t.Errorf("deja aider with a FIFO history: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&fs.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was touched: %v %v", fi.Mode(), err)
	}

	// The project list discovery reads is no history, but is read alike.
	list := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "deja", "aider-projects")
	os.Remove(list)
	mkfifo(t, list)
	if _, stderr, _ := runDeja(t, base, "sources"); !strings.Contains(stderr, "is a named pipe") {
		t.Errorf("deja sources with a FIFO as aider-projects: stderr %q, want a warning", stderr)
	}
}

// TestContextOutputOntoSpecialFiles: 'deja context -o' onto a symlink of
// the user's updates its target and keeps the link; -o /dev/stdout prints
// the digest as -o - does; a FIFO with a reader, a character device made
// in the test's directory and a directory are refused with an error that
// names them and says how to send the digest elsewhere, and stay what
// they were.
func TestContextOutputOntoSpecialFiles(t *testing.T) {
	// Each digest is stamped with the minute it was written, and a slow
	// run crosses a minute between two of them: compare all but the stamp.
	dataDir := indexedDataDir(t)
	ctx := context.Background()
	project := filepath.Join(filepath.Dir(dataDir), "shop")
	dir := t.TempDir()
	dg, _ := deja(t, ctx, nil, "context", "--project", project, "-o", "-")
	if unstamped(dg) == dg {
		t.Fatalf("the digest names no minute it was written:\n%s", dg)
	}

	t.Run("symlink", func(t *testing.T) {
		target := filepath.Join(dir, "notes", "deja.md")
		os.MkdirAll(filepath.Dir(target), 0o755)
		os.WriteFile(target, []byte("old"), 0o644)
		link := filepath.Join(dir, "deja.md")
		os.Symlink("notes/deja.md", link)
		deja(t, ctx, nil, "context", "--project", project, "-o", link)
		if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			t.Errorf("-o onto a symlink replaced the link: %v %v", fi.Mode(), err)
		}
		if got, _ := os.ReadFile(target); unstamped(string(got)) != unstamped(dg) {
			t.Errorf("the link's target holds %q, want the digest", got)
		}
	})

	t.Run("/dev/stdout", func(t *testing.T) {
		if out, _ := deja(t, ctx, nil, "context", "--project", project, "-o", "/dev/stdout"); unstamped(out) != unstamped(dg) {
			t.Errorf("-o /dev/stdout printed %q, want the digest", out)
		}
	})

	// The kernel's names of the command's own output, when it is a pipe:
	// /proc/self/fd/N links to "pipe:[inode]", no path. Each prints.
	t.Run("/proc/self/fd of the output", func(t *testing.T) {
		for _, name := range []string{"/dev/fd/%d", "/proc/self/fd/%d"} {
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			path := fmt.Sprintf(name, w.Fd())
			if _, err := os.Stat(path); err != nil {
				r.Close()
				w.Close()
				t.Skipf("no %s here: %v", path, err)
			}
			got := make(chan []byte, 1)
			go func() { b, _ := io.ReadAll(r); got <- b }()
			root := newRootCmd(&IO{In: strings.NewReader(""), Out: w, Err: io.Discard})
			root.SetArgs([]string{"context", "--project", project, "-o", path})
			err = root.ExecuteContext(ctx)
			w.Close()
			if out := <-got; err != nil || unstamped(string(out)) != unstamped(dg) {
				t.Errorf("-o %s onto the output's pipe = %v, printed %q; want the digest printed", path, err, out)
			}
			r.Close()
		}
	})

	refused := func(t *testing.T, path, kind string) {
		t.Helper()
		before, _ := os.Lstat(path)
		root := newRootCmd(&IO{In: strings.NewReader(""), Out: io.Discard, Err: io.Discard})
		root.SetArgs([]string{"context", "--project", project, "-o", path})
		err := root.ExecuteContext(ctx)
		if err == nil || !strings.Contains(err.Error(), "is a "+kind) || !strings.Contains(err.Error(), "-o -") {
			t.Errorf("-o onto a %s = %v, want a refusal that names it and says to use -o -", kind, err)
		}
		if after, err := os.Lstat(path); err != nil || after.Mode() != before.Mode() {
			t.Errorf("-o made the %s a %v (%v)", kind, after.Mode(), err)
		}
	}

	t.Run("fifo", func(t *testing.T) {
		fifo := filepath.Join(dir, "digest.fifo")
		mkfifo(t, fifo)
		reader, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer reader.Close()
		refused(t, fifo, "named pipe")
		if n, _ := reader.Read(make([]byte, 64)); n > 0 {
			t.Errorf("the FIFO's reader got %d bytes", n)
		}
	})

	t.Run("character device", func(t *testing.T) {
		var st unix.Stat_t
		if err := unix.Stat("/dev/null", &st); err != nil {
			t.Skipf("no /dev/null to copy a device number from: %v", err)
		}
		node := filepath.Join(dir, "null")
		if err := unix.Mknod(node, unix.S_IFCHR|0o666, int(st.Rdev)); err != nil {
			t.Skipf("mknod is not permitted here (%v): run as root, outside a container that forbids it, to check", err)
		}
		refused(t, node, "character device")
	})

	t.Run("directory", func(t *testing.T) {
		refused(t, dir, "directory")
	})
}

// TestContextOutputInASharedDirectory: another user plants ctx.md in a
// sticky world-writable directory, as /tmp is: a symlink to the victim's
// ~/.bashrc, then a FIFO they read. 'deja context -o' refuses both, the
// .bashrc keeps its bytes and the FIFO's reader gets nothing; the user's
// own link there is followed.
func TestContextOutputInASharedDirectory(t *testing.T) {
	dataDir := indexedDataDir(t)
	ctx := context.Background()
	project := filepath.Join(filepath.Dir(dataDir), "shop")
	shared := filepath.Join(t.TempDir(), "shared")
	os.Mkdir(shared, 0o755)
	if err := os.Chmod(shared, 0o777|fs.ModeSticky); err != nil {
		t.Fatal(err)
	}
	const nobody = 65534
	bashrc := filepath.Join(t.TempDir(), ".bashrc")
	os.WriteFile(bashrc, []byte("export PATH\n"), 0o644)
	out := filepath.Join(shared, "ctx.md")
	run := func() error {
		root := newRootCmd(&IO{In: strings.NewReader(""), Out: io.Discard, Err: io.Discard})
		root.SetArgs([]string{"context", "--project", project, "-o", out})
		return root.ExecuteContext(ctx)
	}

	os.Symlink(bashrc, out)
	if err := os.Lchown(out, nobody, nobody); err != nil {
		t.Skipf("cannot give the link to another user (%v): run as root to check", err)
	}
	if err := run(); err == nil || !strings.Contains(err.Error(), "planted") {
		t.Errorf("-o onto a planted link to ~/.bashrc = %v, want a refusal", err)
	}
	if data, _ := os.ReadFile(bashrc); string(data) != "export PATH\n" {
		t.Errorf("~/.bashrc now holds %q", data)
	}

	os.Remove(out)
	mkfifo(t, out)
	os.Chown(out, nobody, nobody)
	reader, err := os.OpenFile(out, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	if err := run(); err == nil || !strings.Contains(err.Error(), "named pipe") {
		t.Errorf("-o onto a planted FIFO = %v, want a refusal", err)
	}
	if n, _ := reader.Read(make([]byte, 64)); n > 0 {
		t.Errorf("the planter's FIFO received %d bytes of the digest", n)
	}

	os.Remove(out)
	mine := filepath.Join(t.TempDir(), "sync", "ctx.md")
	os.MkdirAll(filepath.Dir(mine), 0o700)
	os.Symlink(mine, out)
	if err := run(); err != nil {
		t.Fatalf("-o onto the user's own link in the shared directory: %v", err)
	}
	if data, _ := os.ReadFile(mine); !strings.Contains(string(data), "# What deja remembers") {
		t.Errorf("the user's link's target holds %q, want the digest", data)
	}
	if fi, err := os.Lstat(out); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("the user's link was replaced: %v %v", fi.Mode(), err)
	}
}

// TestSignalsStopBlockedCommands sends SIGINT and SIGTERM to deja while it
// waits: 'deja mcp' reading a stdin nobody writes to and 'deja index'
// waiting for the index lock. Each must exit with the shell's code for the signal (130, 143),
// without "context canceled", and leave the lock free.
func TestSignalsStopBlockedCommands(t *testing.T) {
	dataDir := indexedDataDir(t)
	base := filepath.Dir(dataDir)
	project := filepath.Join(base, "shop")
	held, err := store.AcquireLock(context.Background(), dataDir, store.LockOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		args  []string
		ready string // on stderr once it waits
	}{
		{"mcp", []string{"mcp"}, "embedding"},
		{"index waiting for the lock", []string{"index", "--wait", "10m", project}, "waiting"},
	}
	for _, c := range cases {
		for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
			t.Run(c.name+" "+sig.String(), func(t *testing.T) {
				ctx, cancel := context.WithTimeout(context.Background(), childTimeout)
				defer cancel()
				cmd := exec.CommandContext(ctx, "deja", c.args...)
				cmd.Dir = base
				stdin, _ := cmd.StdinPipe() // held open: mcp blocks reading it
				defer stdin.Close()
				var errb syncBuffer
				cmd.Stderr = &errb
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				// Wait until it says it is blocked where the case says: its
				// signal handling is in place by then, whatever the load.
				for !strings.Contains(errb.String(), c.ready) {
					if ctx.Err() != nil {
						t.Fatalf("never said %q:\n%s", c.ready, errb.String())
					}
					time.Sleep(10 * time.Millisecond)
				}
				sent := time.Now()
				cmd.Process.Signal(sig)
				err := cmd.Wait()
				took := time.Since(sent)
				if ctx.Err() != nil {
					t.Fatalf("still running %s after %v\n%s", childTimeout, sig, errb.String())
				}
				want := 128 + int(sig)
				var ee *exec.ExitError
				if !errors.As(err, &ee) || ee.ExitCode() != want {
					t.Errorf("after %v: %v, want exit %d\n%s", sig, err, want, errb.String())
				}
				if strings.Contains(errb.String(), "context canceled") {
					t.Errorf("stderr says %q", errb.String())
				}
				t.Logf("stopped %s after %v", took.Round(time.Millisecond), sig)
			})
		}
	}
	held.Unlock()
	l, err := store.AcquireLock(context.Background(), dataDir, store.LockOptions{})
	if err != nil {
		t.Fatalf("the index lock is held after the signals: %v", err)
	}
	l.Unlock()
}

// syncBuffer is a bytes.Buffer a child's stderr writes to while the test
// reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestServeStopsOnSignals: deja serve, as a process, stops on SIGINT and
// SIGTERM with the shell's code and takes serve.json and its socket with
// it.
func TestServeStopsOnSignals(t *testing.T) {
	dataDir := indexedDataDir(t)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		ctx, cancel := context.WithTimeout(context.Background(), childTimeout)
		defer cancel()
		cmd := exec.CommandContext(ctx, "deja", "serve")
		var errb syncBuffer
		cmd.Stderr = &errb
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		info := filepath.Join(dataDir, "serve.json")
		for i := 0; i < 1000; i++ {
			if _, err := os.Stat(info); err == nil {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		cmd.Process.Signal(sig)
		err := cmd.Wait()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 128+int(sig) {
			t.Errorf("deja serve after %v: %v, want exit %d\n%s", sig, err, 128+int(sig), errb.String())
		}
		for _, f := range []string{"serve.json", "serve.sock"} {
			if _, err := os.Lstat(filepath.Join(dataDir, f)); !os.IsNotExist(err) {
				t.Errorf("%s outlived deja serve stopped by %v: %v", f, sig, err)
			}
		}
	}
}

// writtenStamp is the minute a digest names as when it was written.
var writtenStamp = regexp.MustCompile(`(?m)^Written by deja on \d{4}-\d\d-\d\d \d\d:\d\d,`)

// unstamped is a digest with the minute it was written masked, so two
// digests written a minute apart compare equal when nothing else differs.
func unstamped(dg string) string {
	return writtenStamp.ReplaceAllString(dg, "Written by deja on <minute>,")
}
