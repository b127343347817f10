package team

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/deja-dev/deja/memory/redact/redacttest"
)

// A fold interrupted after the store committed a batch but before the
// server heard it confirmed, and one interrupted before the commit, lose
// nothing and write nothing twice once the consumer restarts.
func TestRestartedConsumerLosesAndDuplicatesNothing(t *testing.T) {
	ctx := context.Background()
	srv := runServer(t)
	// 700 turns: three fetch batches and a part.
	alice, bob := newPeer(t, history(70, 10, "alice")), newPeer(t, "")
	a := alice.connect(t, srv.ClientURL(), "alice")
	if rep := sync(t, a); rep.Published.Turns != 700 {
		t.Fatalf("alice published %d turns, want 700", rep.Published.Turns)
	}
	written := 0

	// First run: one batch folded and confirmed, the next folded into the
	// store but never confirmed (killed between commit and ack).
	b1 := bob.connect(t, srv.ClientURL(), "bob")
	rep, err := b1.fold(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	written += rep.Turns
	c, err := b1.consumer(ctx, bob.project)
	if err != nil {
		t.Fatal(err)
	}
	msgs, err := b1.fetch(ctx, c)
	if err != nil || len(msgs) == 0 {
		t.Fatalf("fetched %d messages (%v)", len(msgs), err)
	}
	var unacked FoldReport
	if err := b1.foldBatch(ctx, msgs, &unacked); err != nil {
		t.Fatal(err)
	}
	written += unacked.Turns
	b1.Close()

	// Second run: a batch fetched and dropped before the commit.
	b2 := bob.connect(t, srv.ClientURL(), "bob")
	c, err = b2.consumer(ctx, bob.project)
	if err != nil {
		t.Fatal(err)
	}
	if msgs, err := b2.fetch(ctx, c); err != nil || len(msgs) == 0 {
		t.Fatalf("fetched %d messages (%v)", len(msgs), err)
	}
	b2.Close()

	// Third run folds the rest, waiting for the unconfirmed ones to come
	// again.
	b3 := bob.connect(t, srv.ClientURL(), "bob")
	rep = sync(t, b3).Folded
	written += rep.Turns
	if n := turnCount(t, bob.store); n != 700 {
		t.Errorf("bob holds %d turns after the restarts, want alice's 700", n)
	}
	if written != 700 {
		t.Errorf("bob wrote %d turns over three runs, want each of the 700 once", written)
	}
	if rep := sync(t, b3); rep.Folded.Turns != 0 || rep.Folded.Messages != 0 {
		t.Errorf("a caught-up consumer folded again: %+v", rep.Folded)
	}
	st, err := b3.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Lag != 0 || st.Counts.ReceivedTurns != 700 || st.Messages != 700 {
		t.Errorf("status = %+v, want no lag, 700 received turns, 700 messages", st)
	}
}

// No secret of the hardening table leaves the machine: every byte alice
// publishes (bodies and headers) and every byte bob stores is free of them.
func TestRedactionHoldsAcrossTheTeam(t *testing.T) {
	ctx := context.Background()
	srv := runServer(t)
	secrets := redacttest.All()
	var b strings.Builder
	for _, s := range secrets {
		line := strings.Join(strings.Fields(s.Text), " ")
		b.WriteString("\n# aider chat started at 2026-03-01 00:00:00\n\n")
		for _, l := range strings.Split(s.Text, "\n") {
			b.WriteString("#### " + l + "  \n")
		}
		b.WriteString("\nThe answer quotes it:\n" + s.Text + "\n\n> Running " + line + "  \n")
	}
	alice, bob := newPeer(t, b.String()), newPeer(t, "")
	a := alice.connect(t, srv.ClientURL(), "alice")
	if rep := sync(t, a); rep.Published.Turns == 0 {
		t.Fatal("alice published nothing")
	}
	bb := bob.connect(t, srv.ClientURL(), "bob")
	if rep := sync(t, bb); rep.Folded.Turns == 0 {
		t.Fatal("bob folded nothing")
	}

	// Read the whole stream back, as any member could.
	nc, err := nats.Connect(srv.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	oc, err := js.OrderedConsumer(ctx, streamName("core"), jetstream.OrderedConsumerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	var wire strings.Builder
	for {
		batch, err := oc.Fetch(256, jetstream.FetchMaxWait(500*time.Millisecond))
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for m := range batch.Messages() {
			n++
			wire.WriteString(m.Subject() + "\n" + string(m.Data()) + "\n")
			for k, v := range m.Headers() {
				wire.WriteString(k + ": " + strings.Join(v, ",") + "\n")
			}
		}
		if n == 0 {
			break
		}
	}
	sent := wire.String()
	if !strings.Contains(sent, "The answer quotes it") {
		t.Fatal("the stream does not hold alice's turns; the scan would prove nothing")
	}
	bobDB := dumpStore(t, bob.store)
	for _, s := range secrets {
		if strings.Contains(sent, s.Value) {
			t.Errorf("%s: the secret %q left the machine", s.Name, s.Value)
		}
		if strings.Contains(bobDB, s.Value) {
			t.Errorf("%s: the secret %q is in bob's store", s.Name, s.Value)
		}
	}
}
