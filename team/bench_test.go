package team

import (
	"context"
	"testing"
	"time"
)

// BenchmarkPublishAndFold shares 10,000 turns (1,000 sessions of 10)
// from one store to another through a real server on loopback: alice's
// publish, then bob's fold with the built-in embedder. It reports turns a
// second of each and the lag, the time from alice's first publish to
// bob's last commit.
func BenchmarkPublishAndFold(b *testing.B) {
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		srv := runServer(b)
		alice, bob := newPeer(b, history(1000, 10, "alice")), newPeer(b, "")
		a, bb := alice.connect(b, srv.ClientURL(), "alice"), bob.connect(b, srv.ClientURL(), "bob")
		b.StartTimer()
		start := time.Now()
		pub, err := a.Publish(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		published := time.Since(start)
		fold, err := bb.Fold(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		lag := time.Since(start)
		if pub.Turns != 10000 || fold.Turns != 10000 {
			b.Fatalf("published %d and folded %d turns, want 10000", pub.Turns, fold.Turns)
		}
		b.ReportMetric(float64(pub.Turns)/published.Seconds(), "published-turns/s")
		b.ReportMetric(float64(fold.Turns)/(lag-published).Seconds(), "folded-turns/s")
		b.ReportMetric(lag.Seconds(), "lag-s")
	}
}
