package kiro

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// TestCorpus reads each real Kiro history of the shared corpus, laid
// where Kiro writes it: a SQLite store as kiro-cli/data.sqlite3, an IDE
// chat as workspace-sessions/<workspace>/<its sessionId>.json. It skips
// where there is no corpus (none was collected for Kiro so far).
func TestCorpus(t *testing.T) {
	files := harnesstest.CorpusFiles(t, filepath.Join(harnesstest.SharedCorpus, "kiro"), "*.sqlite3", "*.json")
	harnesstest.EachFile(t, files, func(t *testing.T, file string, data []byte) {
		dir := t.TempDir()
		var p string
		if bytes.HasPrefix(data, sqliteMagic) {
			p = filepath.Join(dir, "kiro-cli", storeName)
		} else {
			var c struct {
				SessionID string `json:"sessionId"`
			}
			if json.Unmarshal(data, &c) != nil || !harness.IsToken(c.SessionID) {
				t.Skip("not an IDE chat")
			}
			p = filepath.Join(dir, sessionsDir, wsName, c.SessionID+".json")
		}
		harnesstest.WriteFile(t, p, string(data))
		if err := (Reader{}).Sniff(p, data[:min(len(data), 512)]); err != nil {
			t.Fatal(err)
		}
		h, err := harness.ReadStore(context.Background(), Reader{}, p, harness.ParseOptions{})
		if err != nil {
			t.Fatal(err)
		}
		harnesstest.CheckInvariants(t, h, 0, 0)
		harnesstest.CheckValidIDs(t, h, Reader{}.ValidID)
		harnesstest.CheckTurns(t, h, IDPrefix)
		if len(h.Sessions) == 0 || len(h.Refused) > 0 {
			t.Errorf("sessions %d, refused %q, warnings %q", len(h.Sessions), h.Refused, h.Warnings)
		}
	})
}
