//go:build unix

package main

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// readOnly makes the data directory one deja may not write, as the kernel
// decides it, and returns how to run deja against it. As a user, the
// permission bits do it (chmod -R a-w); root ignores them, so as root each
// command runs in a mount namespace of its own where the directory is a
// read-only bind mount of itself (EROFS, which binds root too).
func readOnly(t *testing.T, dataDir string) func(args ...string) (string, string, int) {
	t.Helper()
	if os.Geteuid() != 0 {
		chmodTree(t, dataDir, 0o222, false)
		t.Cleanup(func() { chmodTree(t, dataDir, 0o200, true) })
		return func(args ...string) (string, string, int) { return runDeja(t, filepath.Dir(dataDir), args...) }
	}
	deja, err := exec.LookPath("deja")
	if err != nil {
		t.Fatal(err)
	}
	probe := exec.Command("unshare", "-m", "sh", "-c", `mount --bind -o ro "$0" "$0" && ! touch "$0/probe" 2>/dev/null`, dataDir)
	if out, err := probe.CombinedOutput(); err != nil {
		t.Skipf("as root, a read-only bind mount is how this test denies writes, and it failed here (%v: %s)", err, out)
	}
	// runDeja runs "deja" from PATH: here a deja that is unshare, which
	// mounts the directory read-only and runs the real one.
	bin := t.TempDir()
	wrapper := "#!/bin/sh\nexec unshare -m sh -c 'mount --bind -o ro \"$0\" \"$0\" && exec \"$@\"' " + dataDir + " " + deja + " \"$@\"\n"
	if err := os.WriteFile(filepath.Join(bin, "deja"), []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	return func(args ...string) (string, string, int) { return runDeja(t, filepath.Dir(dataDir), args...) }
}

// chmodTree takes bits from (or, with add, gives them to) every file and
// directory under root.
func chmodTree(t *testing.T, root string, bits fs.FileMode, add bool) {
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		fi, err := os.Lstat(p)
		if err != nil || fi.Mode()&fs.ModeSymlink != 0 {
			return nil
		}
		m := fi.Mode().Perm() &^ bits
		if add {
			m = fi.Mode().Perm() | bits
		}
		if err := os.Chmod(p, m); err != nil {
			t.Error(err)
		}
		return nil
	})
}

// TestReadOnlyDataDirectory: with a data directory deja may not write,
// every reading command answers from the store (SQLite cannot create its
// -wal and -shm files there, which made every one fail with "unable to
// open database file (14)"), and a writing command says the store is
// read-only and what to do, leaving the directory as it was.
func TestReadOnlyDataDirectory(t *testing.T) {
	dataDir := indexedDataDir(t)
	isolateHome(t, filepath.Dir(dataDir))
	project := filepath.Join(filepath.Dir(dataDir), "shop")
	list, _ := deja(t, context.Background(), nil, "sessions", "--json")
	session := regexp.MustCompile(`aider-[0-9a-f]+-[0-9T]+`).FindString(list)
	before := listTree(t, dataDir)
	run := readOnly(t, dataDir)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"recall", "tenant"}, "Customers are seeing orders"},
		// Reading a misspelling's nearest word uses temporary tables only.
		{[]string{"recall", "tenatn"}, `note: read "tenant" for "tenatn"`},
		{[]string{"recall", "--json", "--mode", "semantic", "rate limiting logins per address"}, "aider-"},
		{[]string{"sessions"}, "aider-"},
		{[]string{"status"}, "sessions"},
		{[]string{"context", "--project", project, "-o", "-"}, "# What deja remembers"},
		{[]string{"doctor"}, "integrity   ok"},
	} {
		stdout, stderr, code := run(c.args...)
		if code != 0 || !strings.Contains(stdout, c.want) {
			t.Errorf("deja %s on a read-only data directory: exit %d, stdout %q, stderr %q; want %q", strings.Join(c.args, " "), code, stdout, stderr, c.want)
		}
	}
	for _, args := range [][]string{{"index", project}, {"forget", session}} {
		_, stderr, code := run(args...)
		if code == 0 || !strings.Contains(stderr, "read-only") || !strings.Contains(stderr, "write permission") {
			t.Errorf("deja %s on a read-only data directory: exit %d, stderr %q; want an error that says the store is read-only and what to do", strings.Join(args, " "), code, stderr)
		}
	}
	if after := listTree(t, dataDir); after != before {
		t.Errorf("the read-only data directory changed:\n%s\nwas\n%s", after, before)
	}
}

// listTree lists the files under root with their sizes and times.
func listTree(t *testing.T, root string) string {
	var b strings.Builder
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			t.Error(err)
			return nil
		}
		fi, _ := d.Info()
		fmt.Fprintf(&b, "%s %d %s\n", p, fi.Size(), fi.ModTime())
		return nil
	})
	return b.String()
}
