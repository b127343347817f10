package harness

import (
	"fmt"
	"io"
	"os"

	"github.com/deja-dev/deja/userfile"
)

// OpenSide opens a file a reader reads beside a history (an index, a
// project list, a session's sidecar, a part of a store) the way deja opens
// a history: a regular file only, following links, refusing a FIFO, device
// or socket without blocking on it ("… is a named pipe, not a regular
// file"). Every reader opens the files it finds through OpenSide or
// ReadSide, never os.Open: a pipe planted at any path deja looks at must
// not hang it.
func OpenSide(path string) (*os.File, error) {
	f, _, err := userfile.Open(path)
	return f, err
}

// ReadSide reads a file as OpenSide opens it, refusing one over max bytes.
func ReadSide(path string, max int64) ([]byte, error) {
	f, err := OpenSide(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%s is over %d bytes", path, max)
	}
	return data, nil
}
