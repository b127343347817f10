package team

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nats-io/nats-server/v2/server"
)

// readmeAuthorization is the account layout the team page documents: its
// authorization block, read from docs/team.md, so the tests and the page
// cannot drift apart.
func readmeAuthorization(t testing.TB) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "docs", "team.md"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	start := strings.Index(s, "authorization { users: [")
	end := strings.Index(s[max(start, 0):], "\n] }")
	if start < 0 || end < 0 {
		t.Fatal("docs/team.md holds no authorization { users: [ … ] } block")
	}
	return s[start : start+end+len("\n] }")]
}

// readmeMember is the team page's entry for bob, a member of project api,
// made the entry of user, a member of project: the layout's every line
// with bob's name and project replaced.
func readmeMember(t testing.TB, auth, user, project string) string {
	t.Helper()
	start := strings.Index(auth, "{ user: bob,")
	end := strings.Index(auth[max(start, 0):], "} }\n")
	if start < 0 || end < 0 {
		t.Fatal("docs/team.md's authorization block holds no entry for bob")
	}
	entry := auth[start : start+end+len("} }\n")]
	return strings.ReplaceAll(strings.ReplaceAll(entry, "bob", user), "api", project)
}

// startReadmeServer starts a server with JetStream and the team page's
// account layout: bob (a member of api) and carol (who shares nothing)
// as it writes them, each member of members (user and project) as it
// writes bob, and admin (password a), who may do anything and creates the
// team's stream.
func startReadmeServer(t *testing.T, members ...[2]string) string {
	t.Helper()
	auth := readmeAuthorization(t)
	var extra strings.Builder
	for _, m := range members {
		extra.WriteString("  " + readmeMember(t, auth, m[0], m[1]))
	}
	extra.WriteString("  { user: admin, password: a }\n")
	auth = strings.Replace(auth, "\n] }", "\n"+extra.String()+"] }", 1)
	// The page's passwords are variables ($BOB_PASS) a server reads from
	// its environment or from the file; the file defines them here, so
	// that tests starting this server may run in parallel.
	dir := t.TempDir()
	conf := filepath.Join(dir, "nats.conf")
	text := "BOB_PASS: b\nCAROL_PASS: c\nhost: 127.0.0.1\nport: -1\njetstream { store_dir: \"" + filepath.Join(dir, "js") + "\" }\n" + auth + "\n"
	if err := os.WriteFile(conf, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	opts, err := server.ProcessConfigFile(conf)
	if err != nil {
		t.Fatalf("docs/team.md's account layout does not load: %v\n%s", err, text)
	}
	opts.NoLog, opts.NoSigs = true, true
	s := startServer(t, opts)
	addr := strings.TrimPrefix(s.ClientURL(), "nats://")
	// The admin creates the stream; no member of the layout may.
	m, err := Connect(context.Background(), newPeer(t, "").store, Options{URL: "nats://admin:a@" + addr, Name: "core", User: "admin"})
	if err != nil {
		t.Fatal(err)
	}
	m.Close()
	return addr
}
