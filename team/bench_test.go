package team

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/deja-dev/deja/memory/index"
)

var benchTurns = flag.Int("team.turns", 10000, "turns BenchmarkPublishAndFold shares (a multiple of 10)")

// BenchmarkPublishAndFold shares -team.turns turns (sessions of 10) from
// one store to another through a real server on loopback: alice publishes
// while bob folds, with the built-in embedder, as fast as each can. It
// reports the turns a second of each, and the lag: how long after alice's
// last turn was acknowledged bob had folded it.
//
//	go test ./team -run '^$' -bench PublishAndFold -benchtime 1x -team.turns 100000 -timeout 60m
func BenchmarkPublishAndFold(b *testing.B) {
	n := *benchTurns
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		srv := runServer(b)
		alice, bob := newPeer(b, ""), newPeer(b, "")
		// Alice's store needs no vectors: they are never sent.
		path := filepath.Join(alice.project, ".aider.chat.history.md")
		if err := os.WriteFile(path, []byte(history(n/10, 10, "alice")), 0o644); err != nil {
			b.Fatal(err)
		}
		if _, err := index.Index(context.Background(), alice.store, index.Options{Paths: []string{path}}); err != nil {
			b.Fatal(err)
		}
		a, bb := alice.connect(b, srv.ClientURL(), "alice"), bob.connect(b, srv.ClientURL(), "bob")
		b.StartTimer()

		start := time.Now()
		type published struct {
			rep PublishReport
			err error
			at  time.Time
		}
		done := make(chan published, 1)
		go func() {
			rep, err := a.Publish(context.Background())
			done <- published{rep, err, time.Now()}
		}()
		folded := 0
		var pub *published
		for folded < n {
			rep, err := bb.Fold(context.Background())
			if err != nil {
				b.Fatal(err)
			}
			folded += rep.Turns
			if pub == nil {
				// Caught up with a publish still going: wait for more.
				wait := time.After(0)
				if rep.Messages == 0 {
					wait = time.After(50 * time.Millisecond)
				}
				select {
				case p := <-done:
					pub = &p
				case <-wait:
				}
			}
			if pub != nil && pub.err != nil {
				b.Fatal(pub.err)
			}
			if pub != nil && folded < n && rep.Messages == 0 {
				b.Fatalf("bob folded %d of the %d turns alice published, and the stream has no more for him", folded, pub.rep.Turns)
			}
		}
		end := time.Now()
		if pub == nil {
			p := <-done
			pub = &p
		}
		if pub.err != nil {
			b.Fatal(pub.err)
		}
		if pub.rep.Turns != n || folded != n {
			b.Fatalf("published %d and folded %d turns, want %d", pub.rep.Turns, folded, n)
		}
		b.ReportMetric(float64(n)/pub.at.Sub(start).Seconds(), "published-turns/s")
		b.ReportMetric(float64(n)/end.Sub(start).Seconds(), "folded-turns/s")
		b.ReportMetric(end.Sub(pub.at).Seconds(), "lag-s")
	}
}
