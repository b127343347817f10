package memory

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deja-dev/deja/embed"
)

// privateHistory holds a forgettable session with a distinctive phrase and
// a session with a secret.
const privateHistory = `
# aider chat started at 2026-03-01 10:00:00

#### the quokkafalcon migration fails on zebracornflux tables  

Rename the zebracornflux column before the quokkafalcon step.

# aider chat started at 2026-03-02 10:00:00

#### deploy with AWS key AKIAIOSFODNN7EXAMPLE and password=Tr0ub4dor-x9-Qm  

Use the deploy script instead of pasting keys.
`

// scanDir reports the files under dir whose bytes contain needle.
func scanDir(t *testing.T, dir string, needle string) []string {
	t.Helper()
	var hits []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(data, []byte(needle)) {
			hits = append(hits, filepath.Base(p))
		}
		return nil
	})
	return hits
}

func TestPrivacyRedactForgetAndModes(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "data")
	hist := filepath.Join(t.TempDir(), ".aider.chat.history.md")
	if err := os.WriteFile(hist, []byte(privateHistory), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	emb, err := embed.NewBuiltin()
	if err != nil {
		t.Fatal(err)
	}
	rep, err := s.Index(ctx, IndexOptions{Paths: []string{hist}, Embedder: emb})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Redacted != 2 {
		t.Errorf("redacted %d secrets, want 2", rep.Redacted)
	}
	for _, secret := range []string{"AKIAIOSFODNN7EXAMPLE", "Tr0ub4dor-x9-Qm"} {
		if hits := scanDir(t, dir, secret); len(hits) > 0 {
			t.Errorf("secret %q stored in %v", secret, hits)
		}
	}
	if hits := scanDir(t, dir, "zebracornflux"); len(hits) == 0 {
		t.Fatal("the indexed phrase is in no file: the scan cannot see stored text")
	}

	sessions, err := s.Sessions(ctx, Scope{})
	if err != nil || len(sessions) != 2 {
		t.Fatalf("sessions: %v, %d", err, len(sessions))
	}
	var migration, deploy string
	for _, si := range sessions {
		if si.Started.Day() == 1 {
			migration = si.ID
		} else {
			deploy = si.ID
		}
	}
	// A digest written for aider quotes the session's turns.
	d, err := s.Context(ctx, ContextOptions{Project: filepath.Dir(hist)})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(d.Markdown, "zebracornflux") {
		t.Fatal("the digest does not quote the session: it cannot show forget removing it")
	}
	if err := os.MkdirAll(filepath.Join(dir, DigestDir), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, DigestDir, "project.md"), []byte(d.Markdown), 0o600); err != nil {
		t.Fatal(err)
	}

	if err := s.Forget(ctx, []string{migration}, LockOptions{}); err != nil {
		t.Fatal(err)
	}
	if forgotten, _ := s.Forgotten(ctx); len(forgotten) != 1 || forgotten[0] != migration {
		t.Fatalf("forgotten = %v, want [%s]", forgotten, migration)
	}
	for _, word := range []string{"zebracornflux", "quokkafalcon"} {
		if hits := scanDir(t, dir, word); len(hits) > 0 {
			t.Errorf("forgotten text %q still in %v", word, hits)
		}
	}
	if hits := scanDir(t, dir, "deploy script"); len(hits) == 0 {
		t.Errorf("the session that was not forgotten (%s) lost its text", deploy)
	}
	r, err := s.Recall(ctx, RecallOptions{Query: "deploy script", Mode: Keyword})
	if err != nil || len(r.Results) != 1 || r.Results[0].SessionID != deploy {
		t.Errorf("recall of the kept session: %v %+v", err, r)
	}

	st, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o700 {
		t.Errorf("data dir mode %v, want 0700", st.Mode().Perm())
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		fi, _ := e.Info()
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("%s mode %v, want 0600", e.Name(), fi.Mode().Perm())
		}
	}
}
