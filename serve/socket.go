package serve

import (
	"net"
	"os"
)

// SocketFile is the Unix domain socket in the data directory on which
// 'deja serve' answers local clients. The data directory is 0700 and the
// socket 0600, so only its owner reaches it; on Linux the server also
// checks each connection's peer user and drops any other. On Windows a
// named pipe whose ACL admits only its owner takes its place.
const SocketFile = "serve.sock"

// LocalListener is a server's private socket.
type LocalListener struct {
	net.Listener
	// Path is the socket's path, for serve.json.
	Path string
	// tmpDir is the private directory that holds the socket when the data
	// directory's path is too long for one; removed on Close.
	tmpDir string
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
