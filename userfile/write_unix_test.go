//go:build unix

package userfile

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestWriteFileIntoACharacterDevice makes a node with /dev/null's device
// number in the test's own directory and writes to it: the node must stay
// a character device, not become a regular file holding the bytes.
func TestWriteFileIntoACharacterDevice(t *testing.T) {
	var st unix.Stat_t
	if err := unix.Stat("/dev/null", &st); err != nil {
		t.Skipf("no /dev/null to copy a device number from: %v", err)
	}
	node := filepath.Join(t.TempDir(), "null")
	if err := unix.Mknod(node, unix.S_IFCHR|0o666, int(st.Rdev)); err != nil {
		t.Skipf("mknod is not permitted here (%v): run as root, outside a container that forbids it, to check", err)
	}
	if err := WriteFile(context.Background(), node, []byte("digest"), 0o600); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(node)
	if err != nil || fi.Mode()&fs.ModeCharDevice == 0 {
		t.Fatalf("after WriteFile the node is %v (%v), want the character device it was", fi.Mode(), err)
	}
	if data, _ := os.ReadFile(node); len(data) != 0 {
		t.Errorf("reading the null device gives %q: it was replaced", data)
	}
}

// TestWriteFileIntoANamedPipe writes to a FIFO whose reader opens it a
// little later: the reader gets the bytes and the FIFO stays.
func TestWriteFileIntoANamedPipe(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "digest.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	got := make(chan string, 1)
	go func() {
		time.Sleep(50 * time.Millisecond)
		f, err := os.Open(fifo)
		if err != nil {
			got <- err.Error()
			return
		}
		defer f.Close()
		data, _ := io.ReadAll(f)
		got <- string(data)
	}()
	if err := WriteFile(context.Background(), fifo, []byte("the digest\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if s := <-got; s != "the digest\n" {
		t.Errorf("the pipe's reader got %q", s)
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&fs.ModeNamedPipe == 0 {
		t.Errorf("after WriteFile the FIFO is %v (%v)", fi.Mode(), err)
	}
}

// TestWriteFileToANamedPipeNobodyReadsEndsWithItsContext: with no reader
// the wait ends when the context does, with an error that says so.
func TestWriteFileToANamedPipeNobodyReadsEndsWithItsContext(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "digest.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	err := WriteFile(ctx, fifo, []byte("x"), 0o600)
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "no reader") {
		t.Errorf("WriteFile to a FIFO nobody reads = %v", err)
	}
}

// TestWriteFileThroughASymlink updates the link's target, atomically,
// and keeps the link; a link whose target does not exist yet creates it.
func TestWriteFileThroughASymlink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "real", "context.md")
	os.MkdirAll(filepath.Dir(target), 0o755)
	os.WriteFile(target, []byte("old"), 0o644)
	link := filepath.Join(dir, "context.md")
	if err := os.Symlink("real/context.md", link); err != nil {
		t.Fatal(err)
	}
	chain := filepath.Join(dir, "chain.md")
	os.Symlink(link, chain)
	if err := WriteFile(context.Background(), chain, []byte("new"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, l := range []string{link, chain} {
		if fi, err := os.Lstat(l); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			t.Errorf("%s is no longer a symlink: %v %v", l, fi.Mode(), err)
		}
	}
	if data, _ := os.ReadFile(target); string(data) != "new" {
		t.Errorf("the link's target holds %q, want the new bytes", data)
	}
	entries, _ := os.ReadDir(filepath.Dir(target))
	if len(entries) != 1 {
		t.Errorf("beside the target: %v, want no temporary file left", entries)
	}

	dangling := filepath.Join(dir, "later.md")
	os.Symlink("real/later.md", dangling)
	if err := WriteFile(context.Background(), dangling, []byte("first"), 0o600); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "real", "later.md")); string(data) != "first" {
		t.Errorf("a link to a file not there yet: target holds %q", data)
	}

	loop := filepath.Join(dir, "loop")
	os.Symlink("loop", loop)
	if err := WriteFile(context.Background(), loop, []byte("x"), 0o600); err == nil || !strings.Contains(err.Error(), "symlinks") {
		t.Errorf("a symlink loop: %v", err)
	}
}

// TestWriteFileReplacesARegularFileAtomically: the file is replaced by a
// rename (a reader holding the old one keeps the old bytes) with perm.
func TestWriteFileReplacesARegularFileAtomically(t *testing.T) {
	path := filepath.Join(t.TempDir(), "context.md")
	os.WriteFile(path, []byte("old"), 0o644)
	held, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	if err := WriteFile(context.Background(), path, []byte("new"), 0o600); err != nil {
		t.Fatal(err)
	}
	old, _ := io.ReadAll(held)
	data, _ := os.ReadFile(path)
	fi, _ := os.Stat(path)
	if string(old) != "old" || string(data) != "new" || fi.Mode().Perm() != 0o600 {
		t.Errorf("held %q, now %q mode %v; want old, new, 0600", old, data, fi.Mode().Perm())
	}
}

// TestWriteFileRefusesADirectoryAndASocket says what is there.
func TestWriteFileRefusesADirectoryAndASocket(t *testing.T) {
	dir := t.TempDir()
	sock := filepath.Join(dir, "s")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	for path, kind := range map[string]string{dir: "directory", sock: "socket"} {
		err := WriteFile(context.Background(), path, []byte("x"), 0o600)
		if err == nil || !strings.Contains(err.Error(), "is a "+kind) || !strings.Contains(err.Error(), "name a file") {
			t.Errorf("WriteFile onto a %s = %v, want a refusal that names it", kind, err)
		}
	}
	if fi, err := os.Lstat(sock); err != nil || fi.Mode()&fs.ModeSocket == 0 {
		t.Errorf("the socket was touched: %v %v", fi.Mode(), err)
	}
}
