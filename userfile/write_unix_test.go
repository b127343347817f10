//go:build unix

package userfile

import (
	"errors"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// TestWriteFileRefusesAPipeADeviceAndASocket: a named pipe (another
// user's ear, in a shared directory), a character device made with
// /dev/null's number and a socket are refused with an error that names
// them, and stay what they were; the pipe's reader gets nothing.
func TestWriteFileRefusesAPipeADeviceAndASocket(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "digest.fifo")
	if err := syscall.Mkfifo(fifo, 0o666); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	// A reader waits on the pipe, as the user who planted it would.
	reader, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	sock := filepath.Join(dir, "s")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	kinds := map[string]string{fifo: "named pipe", sock: "socket"}
	var st unix.Stat_t
	node := filepath.Join(dir, "null")
	if unix.Stat("/dev/null", &st) == nil && unix.Mknod(node, unix.S_IFCHR|0o666, int(st.Rdev)) == nil {
		kinds[node] = "character device"
	} else {
		t.Log("mknod is not permitted here: the character device is not checked")
	}
	for path, kind := range kinds {
		before, _ := os.Lstat(path)
		err := WriteFile(path, []byte("the digest\n"), 0o600)
		if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "is a "+kind) {
			t.Errorf("WriteFile onto a %s = %v, want a refusal that names it", kind, err)
		}
		if after, err := os.Lstat(path); err != nil || after.Mode() != before.Mode() {
			t.Errorf("the %s became %v (%v)", kind, after.Mode(), err)
		}
	}
	buf := make([]byte, 64)
	if n, _ := reader.Read(buf); n > 0 {
		t.Errorf("the pipe's reader got %q", buf[:n])
	}
	if entries, _ := os.ReadDir(dir); len(entries) != len(kinds) {
		t.Errorf("left in the directory: %v", entries)
	}
}

// sharedDir is a sticky world-writable directory, as /tmp is.
func sharedDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "shared")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o777|fs.ModeSticky); err != nil {
		t.Fatal(err)
	}
	return dir
}

// other is a uid neither the test's user nor the owner of the test's
// directories: nobody's.
const other = 65534

// plant makes a symlink at link to dest owned by the other user, as one
// they planted would be. Changing a file's owner takes root (or
// CAP_CHOWN); elsewhere the test cannot plant one and skips.
func plant(t *testing.T, dest, link string) {
	t.Helper()
	if err := os.Symlink(dest, link); err != nil {
		t.Fatal(err)
	}
	if err := os.Lchown(link, other, other); err != nil {
		t.Skipf("cannot give the link to another user (%v): run as root to check", err)
	}
}

// TestWriteFileRefusesALinkPlantedInASharedDirectory: another user plants
// ctx.md -> ~/.bashrc in a sticky world-writable directory (and a
// directory link on the way to it); writing there is refused as the
// kernel's protected_symlinks refuses, whether or not the machine has it
// on, and the victim's file is untouched.
func TestWriteFileRefusesALinkPlantedInASharedDirectory(t *testing.T) {
	home := t.TempDir()
	bashrc := filepath.Join(home, ".bashrc")
	os.WriteFile(bashrc, []byte("export PATH\n"), 0o644)
	shared := sharedDir(t)
	link := filepath.Join(shared, "ctx.md")
	plant(t, bashrc, link)
	plant(t, home, filepath.Join(shared, "notes"))
	for _, path := range []string{link, filepath.Join(shared, "notes", ".bashrc")} {
		err := WriteFile(path, []byte("the digest"), 0o600)
		if !errors.Is(err, ErrPlantedLink) || !strings.Contains(err.Error(), "remove it or name a file elsewhere") {
			t.Errorf("WriteFile(%s) = %v, want a refusal of the planted link that says what to do", path, err)
		}
	}
	if data, _ := os.ReadFile(bashrc); string(data) != "export PATH\n" {
		t.Errorf("the victim's file holds %q", data)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("the planted link was replaced: %v %v", fi.Mode(), err)
	}
}

// TestWriteFileFollowsTheLinksTheKernelFollows: in a shared directory, the
// user's own link and the link of the directory's owner are followed;
// outside one, any link is (the directory's owner chose to let others
// write there).
func TestWriteFileFollowsTheLinksTheKernelFollows(t *testing.T) {
	target := filepath.Join(t.TempDir(), "sync", "ctx.md")
	os.MkdirAll(filepath.Dir(target), 0o755)
	write := func(link string) {
		t.Helper()
		os.WriteFile(target, []byte("old"), 0o644)
		if err := WriteFile(link, []byte("new"), 0o600); err != nil {
			t.Fatalf("WriteFile(%s): %v", link, err)
		}
		if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			t.Errorf("%s is no longer a link: %v %v", link, fi.Mode(), err)
		}
		if data, _ := os.ReadFile(target); string(data) != "new" {
			t.Errorf("through %s the target holds %q", link, data)
		}
	}
	own := filepath.Join(sharedDir(t), "ctx.md")
	os.Symlink(target, own)
	write(own)

	ownersDir := sharedDir(t)
	if err := os.Chown(ownersDir, other, other); err != nil {
		t.Skipf("cannot give a directory to another user (%v): run as root to check", err)
	}
	owners := filepath.Join(ownersDir, "ctx.md")
	plant(t, target, owners)
	write(owners)

	private := filepath.Join(t.TempDir(), "ctx.md")
	plant(t, target, private)
	write(private)
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
	if err := WriteFile(chain, []byte("new"), 0o600); err != nil {
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
	if err := WriteFile(dangling, []byte("first"), 0o600); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "real", "later.md")); string(data) != "first" {
		t.Errorf("a link to a file not there yet: target holds %q", data)
	}

	loop := filepath.Join(dir, "loop")
	os.Symlink("loop", loop)
	if err := WriteFile(loop, []byte("x"), 0o600); err == nil || !strings.Contains(err.Error(), "symlinks") {
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
	if err := WriteFile(path, []byte("new"), 0o600); err != nil {
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
		err := WriteFile(path, []byte("x"), 0o600)
		if err == nil || !strings.Contains(err.Error(), "is a "+kind) || !strings.Contains(err.Error(), "name a file") {
			t.Errorf("WriteFile onto a %s = %v, want a refusal that names it", kind, err)
		}
	}
	if fi, err := os.Lstat(sock); err != nil || fi.Mode()&fs.ModeSocket == 0 {
		t.Errorf("the socket was touched: %v %v", fi.Mode(), err)
	}
}

// TestWriteFileRefusesAProcLinkToAPipe: /dev/fd/N and /proc/self/fd/N of
// a pipe are links whose target reads "pipe:[inode]", no path; the write
// is refused as one onto a pipe, not failed as a file that is not there.
func TestWriteFileRefusesAProcLinkToAPipe(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	for _, name := range []string{"/dev/fd/", "/proc/self/fd/"} {
		path := name + strconv.Itoa(int(w.Fd()))
		if _, err := os.Stat(path); err != nil {
			t.Skipf("no %s here: %v", path, err)
		}
		err := WriteFile(path, []byte("digest"), 0o600)
		if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "named pipe") {
			t.Errorf("WriteFile(%s) = %v, want a refusal naming a pipe", path, err)
		}
	}
}
