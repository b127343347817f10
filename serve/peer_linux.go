package serve

import (
	"net"
	"os"

	"golang.org/x/sys/unix"
)

// peerIsOwner reports whether the process at the other end of a Unix
// socket runs as this process's user (SO_PEERCRED). A connection whose
// peer cannot be told is dropped.
func peerIsOwner(c net.Conn) bool {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return false
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return false
	}
	var cred *unix.Ucred
	var cerr error
	if err := raw.Control(func(fd uintptr) {
		cred, cerr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); err != nil || cerr != nil {
		return false
	}
	return int(cred.Uid) == os.Getuid()
}
