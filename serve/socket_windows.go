package serve

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net"
	"path/filepath"
	"strings"

	"github.com/Microsoft/go-winio"
	"golang.org/x/sys/windows"
)

// ListenLocal listens on a named pipe named after dataDir, whose security
// descriptor grants access to this process's user alone, with no ACE
// inherited (D:P). A pipe a live server holds is an error;
// a killed server's pipe is gone with it.
func ListenLocal(dataDir string) (*LocalListener, error) {
	sid, err := userSID()
	if err != nil {
		return nil, fmt.Errorf("serve: finding this user's SID for the pipe's ACL: %w", err)
	}
	path := pipeName(dataDir)
	ln, err := winio.ListenPipe(path, &winio.PipeConfig{SecurityDescriptor: "D:P(A;;GA;;;" + sid + ")"})
	if err != nil {
		return nil, fmt.Errorf("serve: listening on %s: %w (another deja serve may be running for this data directory)", path, err)
	}
	return &LocalListener{Listener: ln, Path: path}, nil
}

// pipeName is the pipe for a data directory: pipes live in one namespace,
// so the name carries a hash of the directory's path.
func pipeName(dataDir string) string {
	sum := sha256.Sum256([]byte(strings.ToLower(filepath.Clean(dataDir))))
	return `\\.\pipe\deja-serve-` + hex.EncodeToString(sum[:8])
}

func userSID() (string, error) {
	u, err := windows.GetCurrentProcessToken().GetTokenUser()
	if err != nil {
		return "", err
	}
	return u.User.Sid.String(), nil
}

// dialLocal connects to a server's pipe.
func dialLocal(ctx context.Context, path string) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, dialTimeout)
	defer cancel()
	return winio.DialPipeContext(ctx, path)
}
