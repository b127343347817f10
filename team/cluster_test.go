package team

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// runCluster starts three clustered JetStream servers in the test process,
// on loopback, and waits until they are routed to each other.
func runCluster(t *testing.T) []*server.Server {
	t.Helper()
	// Route ports are chosen up front so every node can name the others.
	var ports []int
	var routes []*url.URL
	for i := 0; i < 3; i++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
		l.Close()
		routes = append(routes, &url.URL{Scheme: "nats", Host: fmt.Sprintf("127.0.0.1:%d", ports[i])})
	}
	var nodes []*server.Server
	for i := 0; i < 3; i++ {
		s, err := server.NewServer(&server.Options{
			ServerName: fmt.Sprintf("n%d", i), Host: "127.0.0.1", Port: -1, JetStream: true,
			StoreDir: t.TempDir(), NoLog: true, NoSigs: true,
			Cluster: server.ClusterOpts{Name: "deja", Host: "127.0.0.1", Port: ports[i]},
			Routes:  routes,
		})
		if err != nil {
			t.Fatal(err)
		}
		// A clustered server is ready only once the others joined.
		go s.Start()
		t.Cleanup(s.Shutdown)
		nodes = append(nodes, s)
	}
	for i, s := range nodes {
		if !s.ReadyForConnections(30 * time.Second) {
			t.Fatalf("node %d did not start", i)
		}
	}
	deadline := time.Now().Add(20 * time.Second)
	for _, s := range nodes {
		for s.NumRoutes() < 2 {
			if time.Now().After(deadline) {
				t.Fatalf("%s has %d routes, want 2", s.Name(), s.NumRoutes())
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	return nodes
}

func clusterURL(nodes ...*server.Server) string {
	var urls []string
	for _, s := range nodes {
		urls = append(urls, s.ClientURL())
	}
	return strings.Join(urls, ",")
}

// connectRetry connects a member, retrying while the cluster elects its
// JetStream leaders.
func connectRetry(t *testing.T, p *peer, url, user string, replicas int) *Member {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		m, err := Connect(context.Background(), p.store, Options{
			URL: url, Name: "core", Projects: []string{p.project}, User: user, Host: "host-" + user,
			Embedder: p.emb, AckWait: time.Second, Replicas: replicas, Timeout: 5 * time.Second,
		})
		if err == nil {
			t.Cleanup(m.Close)
			return m
		}
		if time.Now().After(deadline) {
			t.Fatal(err)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// A stream of three replicas keeps every turn when the node a member
// reads from is killed mid-fold: the member, reconnected to the other two,
// folds the rest, losing and duplicating nothing, and new turns still
// arrive.
func TestClusterNodeKilledMidSync(t *testing.T) {
	t.Parallel() // its time is spent waiting on servers, not computing
	ctx := context.Background()
	nodes := runCluster(t)
	alice, bob := newPeer(t, history(50, 10, "alice")), newPeer(t, "")
	a := connectRetry(t, alice, clusterURL(nodes[1], nodes[2]), "alice", 3)
	if rep := sync(t, a); rep.Published.Turns != 500 {
		t.Fatalf("alice published %d turns, want 500", rep.Published.Turns)
	}
	st, err := a.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Replicas != 3 {
		t.Errorf("stream has %d replicas, want 3", st.Replicas)
	}

	b := connectRetry(t, bob, nodes[0].ClientURL(), "bob", 3)
	rep, err := b.fold(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	written := rep.Turns
	if written == 0 || written == 500 {
		t.Fatalf("the first fold wrote %d turns, want a part", written)
	}
	nodes[0].Shutdown()
	b.Close()

	b2 := connectRetry(t, bob, clusterURL(nodes[1], nodes[2]), "bob", 3)
	written += syncRetry(t, b2).Folded.Turns
	if n := turnCount(t, bob.store); n != 500 || written != 500 {
		t.Errorf("bob holds %d turns and wrote %d, want each of alice's 500 once", n, written)
	}

	// Two nodes of three still take new turns.
	more := newPeer(t, history(1, 3, "carol"))
	c := connectRetry(t, more, clusterURL(nodes[1], nodes[2]), "carol", 3)
	if rep := syncRetry(t, c); rep.Published.Turns != 3 {
		t.Errorf("carol published %d turns with a node down, want 3", rep.Published.Turns)
	}
	if rep := syncRetry(t, b2); rep.Folded.Turns != 3 {
		t.Errorf("bob folded %d of carol's turns, want 3", rep.Folded.Turns)
	}
}

// syncRetry syncs until a sync succeeds, as a user runs 'deja team sync'
// again while the cluster elects new leaders after losing a node; it adds
// up what the failed tries did.
func syncRetry(t *testing.T, m *Member) SyncReport {
	t.Helper()
	var total SyncReport
	deadline := time.Now().Add(60 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		rep, err := m.Sync(ctx)
		cancel()
		total.Published.Turns += rep.Published.Turns
		total.Folded.Turns += rep.Folded.Turns
		if err == nil {
			return total
		}
		if time.Now().After(deadline) {
			t.Fatal(err)
		}
		time.Sleep(250 * time.Millisecond)
	}
}
