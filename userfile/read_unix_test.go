//go:build unix

package userfile

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestReadRefusesWhatIsNoRegularFile: a FIFO with no writer (opening it
// would block for ever), a device and a socket are refused without being
// opened; the error names what is there.
func TestReadRefusesWhatIsNoRegularFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	link := filepath.Join(dir, "link-to-fifo")
	os.Symlink(fifo, link)
	for path, kind := range map[string]string{fifo: "named pipe", sock: "socket", "/dev/null": "character device", link: "named pipe"} {
		_, _, err := Read(context.Background(), path, 0)
		if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), kind) {
			t.Errorf("Read(%s) = %v, want ErrNotRegular naming a %s", path, err, kind)
		}
	}
}

// TestReadReadsARegularFileFromAnOffset, through a symlink too.
func TestReadReadsARegularFileFromAnOffset(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "h.md")
	os.WriteFile(path, []byte("0123456789"), 0o600)
	link := filepath.Join(dir, "link.md")
	os.Symlink(path, link)
	data, fi, err := Read(context.Background(), link, 4)
	if err != nil || string(data) != "456789" || fi.Size() != 10 {
		t.Errorf("Read from 4 = %q, %v, %v", data, fi, err)
	}
}

// TestReadEndsWithItsContext returns the context's error, not bytes.
func TestReadEndsWithItsContext(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.md")
	os.WriteFile(path, make([]byte, 3*readChunk), 0o600)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if data, _, err := Read(ctx, path, 0); !errors.Is(err, context.Canceled) || data != nil {
		t.Errorf("Read with an ended context = %d bytes, %v", len(data), err)
	}
}
