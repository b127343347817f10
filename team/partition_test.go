package team

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	gosync "sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/deja-dev/deja/memory/index"
	"github.com/deja-dev/deja/memory/store"
)

// link is one direction of the cluster's network: a TCP proxy that one
// node dials to reach another's route port. Cutting it drops its
// connections and refuses new ones until it is healed, as a network
// partition does.
type link struct {
	ln     net.Listener
	target string
	mu     gosync.Mutex
	cut    bool
	conns  []net.Conn
}

func newLink(t *testing.T, target string) *link {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := &link{ln: ln, target: target}
	t.Cleanup(func() { ln.Close(); l.setCut(true) })
	go l.serve()
	return l
}

func (l *link) url() *url.URL { return &url.URL{Scheme: "nats", Host: l.ln.Addr().String()} }

func (l *link) serve() {
	for {
		c, err := l.ln.Accept()
		if err != nil {
			return
		}
		l.mu.Lock()
		if l.cut {
			l.mu.Unlock()
			c.Close()
			continue
		}
		up, err := net.Dial("tcp", l.target)
		if l.target == "" {
			err = errors.New("no target yet")
		}
		if err != nil {
			l.mu.Unlock()
			c.Close()
			continue
		}
		l.conns = append(l.conns, c, up)
		l.mu.Unlock()
		go pipe(c, up)
		go pipe(up, c)
	}
}

func pipe(dst, src net.Conn) {
	io.Copy(dst, src)
	dst.Close()
	src.Close()
}

// setCut cuts the link (closing what it carries) or heals it.
func (l *link) setCut(cut bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.cut = cut
	if cut {
		for _, c := range l.conns {
			c.Close()
		}
		l.conns = nil
	}
}

// partitionable is a 3-node cluster whose every route runs through a link,
// so one node can be cut off from the other two and joined again.
type partitionable struct {
	nodes []*server.Server
	// links[i][j] carries what node i sends to node j's route port.
	links [3][3]*link
}

// runPartitionableCluster starts three clustered JetStream servers whose
// routes all go through links. Each node dials the others only through
// its own links, and advertises a route address nothing listens on, so no
// route the servers discover by gossip can bypass a cut link.
func runPartitionableCluster(t *testing.T) *partitionable {
	t.Helper()
	// Each node's cluster port is its own pick (-1), which no other
	// process can take between a pick and the start: a port found free
	// and let go for the node left CI's node waiting on one another test
	// had taken. Links learn their targets once the nodes listen.
	pc := &partitionable{}
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			if i != j {
				pc.links[i][j] = newLink(t, "")
			}
		}
	}
	nowhere := refusing(t)
	for i := 0; i < 3; i++ {
		var routes []*url.URL
		for j := 0; j < 3; j++ {
			if i != j {
				routes = append(routes, pc.links[i][j].url())
			}
		}
		s, err := server.NewServer(&server.Options{
			ServerName: fmt.Sprintf("n%d", i), Host: "127.0.0.1", Port: -1, JetStream: true,
			StoreDir: t.TempDir(), NoLog: true, NoSigs: true,
			Cluster: server.ClusterOpts{Name: "deja", Host: "127.0.0.1", Port: -1,
				Advertise: nowhere},
			Routes: routes,
		})
		if err != nil {
			t.Fatal(err)
		}
		go s.Start()
		t.Cleanup(s.Shutdown)
		pc.nodes = append(pc.nodes, s)
	}
	for i, s := range pc.nodes {
		if !s.ReadyForConnections(30 * time.Second) {
			t.Fatalf("node %d did not start", i)
		}
	}
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			if i != j {
				pc.links[i][j].setTarget(pc.nodes[j].ClusterAddr().String())
			}
		}
	}
	pc.waitRoutes(t, 2, 2, 2)
	return pc
}

// setTarget names the address the link carries connections to.
func (l *link) setTarget(target string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.target = target
}

// refusing is the address of a loopback listener, held for the test, that
// closes every connection: an advertised route address that leads nowhere.
func refusing(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	return ln.Addr().String()
}

// isolate cuts node k off from the other two (heal false) or joins it
// again (heal true), and waits until every node's routes say so.
func (pc *partitionable) isolate(t *testing.T, k int, heal bool) {
	t.Helper()
	for i := 0; i < 3; i++ {
		if i != k {
			pc.links[i][k].setCut(!heal)
			pc.links[k][i].setCut(!heal)
		}
	}
	want := [3]int{1, 1, 1}
	want[k] = 0
	if heal {
		want = [3]int{2, 2, 2}
	}
	pc.waitRoutes(t, want[0], want[1], want[2])
}

// waitRoutes waits until each node is routed to as many others as want
// says.
func (pc *partitionable) waitRoutes(t *testing.T, want ...int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for i, s := range pc.nodes {
		for peers(t, s) != want[i] {
			if time.Now().After(deadline) {
				t.Fatalf("%s is routed to %d nodes, want %d", s.Name(), peers(t, s), want[i])
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// peers counts the nodes a node has routes to (a pair may have several).
func peers(t *testing.T, s *server.Server) int {
	t.Helper()
	rz, err := s.Routez(nil)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, r := range rz.Routes {
		names[r.RemoteName] = true
	}
	return len(names)
}

// turnSet is every turn a store holds, session/turn to its hash.
func turnSet(t *testing.T, s *store.Store) map[string]string {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(s.Dir(), store.DBFile)+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT session_id || '/' || turn, hash FROM turns`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var k, h string
		if err := rows.Scan(&k, &h); err != nil {
			t.Fatal(err)
		}
		if _, dup := out[k]; dup {
			t.Errorf("turn %s is stored twice", k)
		}
		out[k] = h
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// laterHistory is like history, its sessions starting in June, after
// history's.
func laterHistory(n, turns int, word string) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "\n# aider chat started at 2026-06-01 10:%02d:00\n\n", i)
		for j := 0; j < turns; j++ {
			fmt.Fprintf(&b, "#### %s question %d of session %d  \n\n", word, j, i)
			fmt.Fprintf(&b, "The %s answer %d of session %d.\n\n", word, j, i)
		}
	}
	return b.String()
}

// reindex appends to a peer's history and indexes it, as a session that
// goes on does.
func (p *peer) reindex(t *testing.T, more string) {
	t.Helper()
	path := filepath.Join(p.project, ".aider.chat.history.md")
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(more); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if _, err := index.Index(context.Background(), p.store, indexOpts(path, p)); err != nil {
		t.Fatal(err)
	}
}

// A member whose node is cut off from the rest of the cluster cannot
// publish (a stream of three replicas commits only on a majority), and
// keeps his new turns unsent; the majority side goes on taking turns.
// Once the partition heals, both stores hold the same turns, each once,
// and the stream holds each turn once.
func TestPartitionHealsAndBothConverge(t *testing.T) {
	t.Parallel() // its time is spent waiting on servers, not computing
	ctx := context.Background()
	pc := runPartitionableCluster(t)
	alice, bob := newPeer(t, history(4, 5, "alice")), newPeer(t, history(2, 5, "bob"))
	a := connectRetry(t, alice, pc.nodes[0].ClientURL(), "alice", 3)
	b := connectRetry(t, bob, pc.nodes[2].ClientURL(), "bob", 3)
	syncRetry(t, a)
	syncRetry(t, b)
	syncRetry(t, a)
	before := turnSet(t, alice.store)
	if len(before) != 30 || fmt.Sprint(before) != fmt.Sprint(turnSet(t, bob.store)) {
		t.Fatalf("before the partition alice holds %d turns and bob %d, want the same 30", len(before), len(turnSet(t, bob.store)))
	}

	// Node 2, bob's, is cut off; both go on working.
	pc.isolate(t, 2, false)
	alice.reindex(t, laterHistory(3, 4, "alice-during"))
	bob.reindex(t, laterHistory(2, 3, "bob-during"))
	if rep := syncRetry(t, a); rep.Published.Turns != 12 {
		t.Errorf("alice published %d turns on the majority side, want her 12 new ones", rep.Published.Turns)
	}
	sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	rep, err := b.Sync(sctx)
	cancel()
	if err == nil {
		t.Fatalf("bob's sync on the cut-off node succeeded (%+v); a minority cannot commit", rep)
	}
	unsent, err := bob.store.UnsentTurns(ctx, []string{bob.project}, 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(unsent) != 6 {
		t.Errorf("bob has %d unsent turns during the partition, want his 6 new ones", len(unsent))
	}

	// The partition heals: bob's turns go out, alice's come in.
	pc.isolate(t, 2, true)
	deadline := time.Now().Add(2 * time.Minute)
	for {
		syncRetry(t, b)
		syncRetry(t, a)
		as, bs := turnSet(t, alice.store), turnSet(t, bob.store)
		if len(as) == 48 && fmt.Sprint(as) == fmt.Sprint(bs) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after the heal alice holds %d turns and bob %d, want the same 48", len(as), len(bs))
		}
	}
	// Right after the heal the stream's state is reported by whichever
	// node leads it once the elections settle, and a node that was cut off
	// reports what it held until it has caught up: wait for that, within
	// the deadline, and hold every member to the same count.
	for _, m := range []*Member{a, b} {
		for {
			st, err := m.Status(ctx)
			if err == nil && st.Messages == 48 && st.Lag == 0 && st.Unsent == 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: stream holds %d messages, lag %d, %d unsent (%v); want each of the 48 turns once, all folded and sent",
					m.Machine(), st.Messages, st.Lag, st.Unsent, err)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
}
