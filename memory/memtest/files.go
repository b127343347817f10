package memtest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/deja-dev/deja/userfile"
)

// writeHistory writes data at dir/name and returns the resolved path.
func WriteHistory(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	path, err := userfile.ResolvePath(path)
	if err != nil {
		t.Fatal(err)
	}
	return path
}
