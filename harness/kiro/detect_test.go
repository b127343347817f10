package kiro_test

import (
	"path/filepath"
	"testing"

	"github.com/deja-dev/deja/harness/every"
	"github.com/deja-dev/deja/harness/kiro"
)

// TestDetect: in the registry's order, a Kiro IDE chat goes to kiro and
// not to continue, whose session files it resembles (sessionId and
// history at the top, a sessions.json beside it), and the CLI's store to
// kiro; a Continue session stays Continue's.
func TestDetect(t *testing.T) {
	ws := filepath.Join("home", "Kiro", "User", "globalStorage", "kiro.kiroagent", "workspace-sessions", "L2hvbWUvdS9zaG9w")
	chat := []byte(`{"sessionId": "0b7c1a52-9f3e-4d61-a2b8-5c4d3e2f1a09", "history": []}`)
	for _, c := range []struct {
		path string
		head []byte
		want string
	}{
		{filepath.Join(ws, "0b7c1a52-9f3e-4d61-a2b8-5c4d3e2f1a09.json"), chat, kiro.Name},
		{filepath.Join("home", ".local", "share", "kiro-cli", "data.sqlite3"), []byte("SQLite format 3\x00"), kiro.Name},
		{filepath.Join("home", ".continue", "sessions", "0b7c1a52-9f3e-4d61-a2b8-5c4d3e2f1a09.json"), chat, "continue"},
	} {
		r, err := every.Readers().Detect(c.path, c.head)
		if err != nil || r.Name() != c.want {
			t.Errorf("%s: %v, %v; want %s", c.path, r, err, c.want)
		}
	}
}
