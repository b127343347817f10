package team

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/deja-dev/deja/embed"
	"github.com/deja-dev/deja/memory/digest"
	"github.com/deja-dev/deja/memory/index"
	"github.com/deja-dev/deja/memory/recall"
	"github.com/deja-dev/deja/memory/store"
)

// runServer starts a real NATS server with JetStream in the test process,
// on a free loopback port.
func runServer(t testing.TB) *server.Server {
	t.Helper()
	return startServer(t, &server.Options{
		Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: t.TempDir(), NoLog: true, NoSigs: true,
	})
}

// startServer starts a real NATS server with these options and waits
// until it takes connections.
func startServer(t testing.TB, opts *server.Options) *server.Server {
	t.Helper()
	s, err := server.NewServer(opts)
	if err != nil {
		t.Fatal(err)
	}
	s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		t.Fatal("nats server did not start")
	}
	t.Cleanup(s.Shutdown)
	return s
}

// history is an aider history of n sessions with turns turns each; every
// answer names its session and turn, so recall can find one.
func history(n, turns int, word string) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "\n# aider chat started at 2026-05-%02d %02d:%02d:00\n\n", 1+i/1440%28, i/60%24, i%60)
		for j := 0; j < turns; j++ {
			fmt.Fprintf(&b, "#### %s question %d of session %d about the billing retry queue  \n\n", word, j, i)
			fmt.Fprintf(&b, "The %s answer %d of session %d: backoff doubles in retry.go.\n\n", word, j, i)
		}
	}
	return b.String()
}

type peer struct {
	store   *store.Store
	project string
	emb     embed.Embedder
}

// newPeer opens a store whose project directory is named api (at a path
// of its own, as a checkout on another machine is) and indexes hist there.
func newPeer(t testing.TB, hist string) *peer {
	t.Helper()
	ctx := context.Background()
	project := filepath.Join(t.TempDir(), "api")
	if err := os.MkdirAll(project, 0o755); err != nil {
		t.Fatal(err)
	}
	s, err := store.Open(ctx, filepath.Join(t.TempDir(), "data"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	emb, err := embed.NewBuiltin()
	if err != nil {
		t.Fatal(err)
	}
	p := &peer{store: s, project: project, emb: emb}
	if hist != "" {
		path := filepath.Join(project, ".aider.chat.history.md")
		if err := os.WriteFile(path, []byte(hist), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := index.Index(ctx, s, index.Options{Paths: []string{path}, Embedder: emb}); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

func (p *peer) connect(t testing.TB, url, user string) *Member {
	t.Helper()
	m, err := Connect(context.Background(), p.store, Options{
		URL: url, Name: "core", Projects: []string{p.project}, User: user, Host: "host-" + user,
		Version: "test", Embedder: p.emb, AckWait: time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	return m
}

func sync(t *testing.T, m *Member) SyncReport {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	rep, err := m.Sync(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func sessions(t *testing.T, s *store.Store) map[string]string {
	t.Helper()
	list, err := digest.Sessions(context.Background(), s, recall.Scope{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, si := range list {
		out[si.ID] = si.Project
	}
	return out
}

// turnCount counts the store's turns straight from its database.
func turnCount(t *testing.T, s *store.Store) int {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(s.Dir(), store.DBFile)+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM turns`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestTwoStoresExchangeTurns(t *testing.T) {
	ctx := context.Background()
	srv := runServer(t)
	alice := newPeer(t, history(2, 2, "alice"))
	bob := newPeer(t, history(1, 1, "bob"))
	a, b := alice.connect(t, srv.ClientURL(), "alice"), bob.connect(t, srv.ClientURL(), "bob")

	if rep := sync(t, a); rep.Published.Turns != 4 {
		t.Errorf("alice published %d turns, want 4", rep.Published.Turns)
	}
	if rep := sync(t, b); rep.Published.Turns != 1 || rep.Folded.Turns != 4 {
		t.Errorf("bob published %d and folded %d turns, want 1 and 4", rep.Published.Turns, rep.Folded.Turns)
	}
	if rep := sync(t, a); rep.Published.Turns != 0 || rep.Folded.Turns != 1 {
		t.Errorf("alice's second sync published %d and folded %d turns, want 0 and 1", rep.Published.Turns, rep.Folded.Turns)
	}
	got := sessions(t, bob.store)
	if len(got) != 3 {
		t.Fatalf("bob holds sessions %v, want his one and alice's two", got)
	}
	for id := range sessions(t, alice.store) {
		if from, _, _ := alice.store.Origin(ctx, id); from != "" {
			continue // bob's, folded back
		}
		if got[id] != bob.project {
			t.Errorf("session %s is under %q on bob's machine, want his checkout %s", id, got[id], bob.project)
		}
		origin, user, err := bob.store.Origin(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if user != "alice" || origin != a.Machine() {
			t.Errorf("session %s came from %q (%q), want alice on %s", id, user, origin, a.Machine())
		}
	}
	// Bob recalls alice's turn locally, by keyword and by meaning (his
	// own embedder embedded it).
	for _, mode := range []recall.Mode{recall.Keyword, recall.Semantic} {
		r, err := recall.Recall(ctx, bob.store, recall.Options{Query: "alice answer backoff doubles", Mode: mode, Embedder: bob.emb, Scope: recall.Scope{Project: bob.project}, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, res := range r.Results {
			if strings.Contains(res.Assistant, "alice answer") {
				found = true
				if !strings.Contains(res.User, "alice question") {
					t.Errorf("alice's turn reached bob with the question %q", res.User)
				}
			}
		}
		if !found {
			t.Errorf("bob's %s recall in his checkout does not find alice's turn: %+v", mode, r.Results)
		}
	}
	// Nothing is sent twice: another round publishes and folds nothing.
	if rep := sync(t, b); rep.Published.Turns != 0 || rep.Folded.Turns != 0 {
		t.Errorf("a quiet sync published %d and folded %d turns", rep.Published.Turns, rep.Folded.Turns)
	}
	// A project that is not shared is never published.
	carol := newPeer(t, history(1, 1, "carol"))
	c, err := Connect(ctx, carol.store, Options{URL: srv.ClientURL(), Name: "core", Projects: []string{t.TempDir()}, User: "carol", Host: "h"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if rep := sync(t, c); rep.Published.Turns != 0 {
		t.Errorf("carol shares no project of hers but published %d turns", rep.Published.Turns)
	}
}

func TestForgetOnOneRemovesTheTurnOnTheOther(t *testing.T) {
	ctx := context.Background()
	srv := runServer(t)
	alice, bob := newPeer(t, history(2, 1, "alice")), newPeer(t, "")
	a, b := alice.connect(t, srv.ClientURL(), "alice"), bob.connect(t, srv.ClientURL(), "bob")
	sync(t, a)
	sync(t, b)
	ids := sessions(t, alice.store)
	if len(sessions(t, bob.store)) != 2 {
		t.Fatalf("bob holds %v before the forget, want alice's two sessions", sessions(t, bob.store))
	}
	var gone string
	for id := range ids {
		gone = id
		break
	}
	// The unsent turn alice still had: keep it to send it again later.
	stale, err := alice.store.UnsentTurns(ctx, []string{alice.project}, 0, 10)
	if err != nil || len(stale) != 0 {
		t.Fatalf("alice has %d unsent turns after a sync (%v)", len(stale), err)
	}
	if err := alice.store.Forget(ctx, []string{gone}, store.LockOptions{}); err != nil {
		t.Fatal(err)
	}
	if rep := sync(t, a); rep.Published.Tombstones != 1 {
		t.Errorf("alice sent %d tombstones, want 1", rep.Published.Tombstones)
	}
	if rep := sync(t, b); rep.Folded.Tombstones != 1 {
		t.Errorf("bob folded %d tombstones, want 1", rep.Folded.Tombstones)
	}
	if _, ok := sessions(t, bob.store)[gone]; ok {
		t.Fatalf("bob still holds %s after alice forgot it", gone)
	}
	if len(sessions(t, bob.store)) != 1 {
		t.Errorf("bob holds %v, want alice's other session alone", sessions(t, bob.store))
	}

	// The tombstone wins over a later publish of the session's turn (an
	// old copy of alice's store, say): bob drops it.
	old := store.SharedTurn{Session: gone, Project: alice.project, Harness: "aider", Turn: 0, Line: 3, Hash: "republished", User: "q", Assist: "an old copy"}
	if err := a.publishTurns(ctx, []store.SharedTurn{old}); err != nil {
		t.Fatal(err)
	}
	if rep := sync(t, b); rep.Folded.Dropped != 1 || rep.Folded.Turns != 0 {
		t.Errorf("bob folded the republished turn of a forgotten session: %+v", rep.Folded)
	}
	if _, ok := sessions(t, bob.store)[gone]; ok {
		t.Error("a republished turn brought a forgotten session back")
	}

	// A member who joins later never receives the forgotten turns: the
	// subject was purged, and the tombstone keeps them out.
	carol := newPeer(t, "")
	c := carol.connect(t, srv.ClientURL(), "carol")
	sync(t, c)
	if _, ok := sessions(t, carol.store)[gone]; ok || len(sessions(t, carol.store)) != 1 {
		t.Errorf("carol, joining after the forget, holds %v", sessions(t, carol.store))
	}

	// A forget by bob of alice's session stays on bob's machine: only the
	// member who published a session forgets it for the team.
	var other string
	for id := range sessions(t, bob.store) {
		other = id
	}
	if err := bob.store.Forget(ctx, []string{other}, store.LockOptions{}); err != nil {
		t.Fatal(err)
	}
	if rep := sync(t, b); rep.Published.Tombstones != 0 {
		t.Errorf("bob sent %d tombstones for alice's session", rep.Published.Tombstones)
	}
	sync(t, a)
	sync(t, c)
	if _, ok := sessions(t, bob.store)[other]; ok {
		t.Errorf("bob still holds %s after forgetting it", other)
	}
	for name, p := range map[string]*peer{"alice": alice, "carol": carol} {
		if _, ok := sessions(t, p.store)[other]; !ok {
			t.Errorf("bob's forget of alice's session %s reached %s", other, name)
		}
	}
	forgotten, err := alice.store.Forgotten(ctx)
	if err != nil || len(forgotten) != 1 || forgotten[0] != gone {
		t.Errorf("alice's tombstones = %v (%v), want %s alone", forgotten, err, gone)
	}
}

// dumpStore is every text of a store's ledger, as one string.
func dumpStore(t *testing.T, s *store.Store) string {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(s.Dir(), store.DBFile)+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT s.id || s.header || t.user || t.assistant || t.files || t.commands FROM turns t JOIN sessions s ON s.id = t.session_id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var b strings.Builder
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			t.Fatal(err)
		}
		b.WriteString(v + "\n")
	}
	return b.String()
}

func indexOpts(path string, p *peer) index.Options {
	return index.Options{Paths: []string{path}, Embedder: p.emb}
}
