package serve

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
)

// SocketFile is the Unix domain socket in the data directory on which
// 'deja serve' answers local clients. The data directory is 0700 and the
// socket 0600, so only its owner reaches it; on Linux the server also
// checks each connection's peer user and drops any other.
const SocketFile = "serve.sock"

// maxSocketPath keeps a socket's path inside sun_path: 108 bytes on
// Linux, 104 on macOS and the BSDs, with room for the NUL.
const maxSocketPath = 100

// LocalListener is a server's private socket.
type LocalListener struct {
	net.Listener
	// Path is the socket's path, for serve.json.
	Path string
	// tmpDir is the private directory that holds the socket when the data
	// directory's path is too long for one; removed on Close.
	tmpDir string
}

// ListenLocal listens on the socket in dataDir, or, when that path is
// too long for a socket, in a new 0700 directory of the system's
// temporary directory. A socket left by a killed server is removed; one a
// live server answers on is an error.
func ListenLocal(dataDir string) (*LocalListener, error) {
	path := filepath.Join(dataDir, SocketFile)
	ll := &LocalListener{Path: path}
	if len(path) > maxSocketPath {
		dir, err := os.MkdirTemp("", "deja-serve-")
		if err != nil {
			return nil, fmt.Errorf("serve: a directory for the socket: %w", err)
		}
		ll.tmpDir, ll.Path = dir, filepath.Join(dir, SocketFile)
	} else if err := removeStaleSocket(path); err != nil {
		return nil, err
	}
	ln, err := net.Listen("unix", ll.Path)
	if err != nil {
		ll.removeTmp()
		return nil, fmt.Errorf("serve: listening on %s: %w", ll.Path, err)
	}
	// Listen creates the socket under the umask; the 0700 directory keeps
	// others out meanwhile.
	if err := os.Chmod(ll.Path, 0o600); err != nil {
		ln.Close()
		ll.removeTmp()
		return nil, fmt.Errorf("serve: %w", err)
	}
	ll.Listener = ownerOnly{ln}
	return ll, nil
}

// Close stops listening and removes the socket.
func (ll *LocalListener) Close() error {
	err := ll.Listener.Close()
	ll.removeTmp()
	return err
}

func (ll *LocalListener) removeTmp() {
	if ll.tmpDir != "" {
		os.RemoveAll(ll.tmpDir)
	}
}

// removeStaleSocket removes the socket at path unless a server answers on
// it. Anything but a socket is left alone and refused.
func removeStaleSocket(path string) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	if fi.Mode().Type() != fs.ModeSocket {
		return fmt.Errorf("serve: %s is a %s, not a socket: remove it, then start deja serve again", path, fileKind(fi.Mode()))
	}
	if c, err := net.DialTimeout("unix", path, dialTimeout); err == nil {
		c.Close()
		return fmt.Errorf("serve: another deja serve answers on %s for this data directory: stop it first", path)
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("serve: removing the stale socket: %w", err)
	}
	return nil
}

// fileKind names what a mode is, for messages.
func fileKind(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "regular file"
	case m.IsDir():
		return "directory"
	case m&fs.ModeSymlink != 0:
		return "symlink"
	case m&fs.ModeNamedPipe != 0:
		return "named pipe"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeCharDevice != 0:
		return "character device"
	case m&fs.ModeDevice != 0:
		return "device"
	}
	return "special file"
}

// ownerOnly drops connections from another user where the system says
// who the peer is (peerIsOwner).
type ownerOnly struct{ net.Listener }

func (l ownerOnly) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if peerIsOwner(c) {
			return c, nil
		}
		c.Close()
	}
}
