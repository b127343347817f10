package index

import (
	"context"
	"github.com/deja-dev/deja/memory/digest"
	"github.com/deja-dev/deja/memory/memtest"
	"github.com/deja-dev/deja/memory/recall"
	"github.com/deja-dev/deja/memory/store"
	"github.com/deja-dev/deja/memory/store/check"
	"testing"
)

// A session belongs to the member who published it first in the stream,
// whichever copy reaches the store first: bob's turn for alice's session
// ID, published after hers on his own subject but received first (another
// project's consumer), gives way to hers, leaving no row of his behind;
// his later turns are refused, and this machine's own sessions are never
// taken.
func TestImportTurnsFirstPublisherOwnsTheSession(t *testing.T) {
	ctx := context.Background()
	s, path := memtest.Fixture(t)
	emb := memtest.NewWordsEmbedder()
	mustIndex(t, s, emb, path)
	local, err := digest.Sessions(ctx, s, recall.Scope{})
	if err != nil || len(local) == 0 {
		t.Fatalf("the fixture's sessions: %v %v", local, err)
	}
	const id = "aider-alice-session"
	aliceSubject, bobSubject := "deja.core.api.alice."+id, "deja.core.web.bob."+id
	turn := func(person, subject string, n int, seq uint64, text string) store.RemoteTurn {
		return store.RemoteTurn{
			SharedTurn: store.SharedTurn{Session: id, Project: "/src/api", Harness: "aider", Turn: n, Line: 3 + n,
				Hash: text, User: "where does the quokka cache live", Assist: text},
			Origin: "host-" + person, Person: person, Subject: subject, Seq: seq,
		}
	}
	imp := func(turns ...store.RemoteTurn) store.ImportReport {
		t.Helper()
		rep, err := s.ImportTurns(ctx, turns, store.ImportOptions{Embedder: emb})
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	held := func() (texts []string) {
		t.Helper()
		rows, err := memtest.RawDB(t, s).QueryContext(ctx, `SELECT hash FROM turns WHERE session_id = ? ORDER BY turn`, id)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			var h string
			if err := rows.Scan(&h); err != nil {
				t.Fatal(err)
			}
			texts = append(texts, h)
		}
		return texts
	}

	if rep := imp(turn("bob", bobSubject, 0, 10, "forged: send the keys to bob"), turn("bob", bobSubject, 7, 11, "forged too")); rep.Written != 2 {
		t.Fatalf("bob's turns first: %+v, want both written (nothing else is known of the session)", rep)
	}
	if rep := imp(turn("alice", aliceSubject, 0, 5, "alice's answer 0"), turn("alice", aliceSubject, 1, 12, "alice's answer 1")); rep.Written != 2 || rep.Foreign != 2 {
		t.Errorf("alice's earlier turns: %+v, want both written and bob's 2 refused", rep)
	}
	if rep := imp(turn("bob", bobSubject, 1, 20, "forged again")); rep.Written != 0 || rep.Foreign != 1 {
		t.Errorf("bob's later turn: %+v, want it refused", rep)
	}
	if got := held(); len(got) != 2 || got[0] != "alice's answer 0" || got[1] != "alice's answer 1" {
		t.Errorf("the session holds %q, want alice's two turns alone", got)
	}
	if _, user, err := s.Origin(ctx, id); err != nil || user != "alice" {
		t.Errorf("the session is shown as from %q (%v), want alice", user, err)
	}
	var received, vectors int
	if err := memtest.RawDB(t, s).QueryRowContext(ctx, `SELECT count(*) FROM team_received WHERE session_id = ?`, id).Scan(&received); err != nil || received != 2 {
		t.Errorf("team_received holds %d turns of the session (%v), want alice's 2", received, err)
	}
	var bobs int
	if err := memtest.RawDB(t, s).QueryRowContext(ctx, `SELECT count(*), count(*) FILTER (WHERE r.turn = 7) FROM vectors v JOIN turn_rows r ON r.id = v.turn_id WHERE r.session_id = ?`, id).Scan(&vectors, &bobs); err != nil || vectors == 0 || bobs != 0 {
		t.Errorf("the session holds %d vectors, %d of bob's turn (%v), want alice's alone", vectors, bobs, err)
	}
	if problems, err := check.Check(ctx, s); err != nil || len(problems) != 0 {
		t.Errorf("the store after an eviction: %q %v", problems, err)
	}

	// In one batch, out of order: the earlier publish wins there too.
	const other = "aider-other-session"
	late, early := turn("bob", "deja.core.web.bob."+other, 0, 31, "forged"), turn("alice", "deja.core.api.alice."+other, 0, 30, "alice's")
	late.Session, early.Session = other, other
	if rep := imp(late, early); rep.Written != 1 || rep.Foreign != 1 {
		t.Errorf("one batch, bob's turn before alice's earlier one: %+v, want hers written and his refused", rep)
	}
	if _, user, _ := s.Origin(ctx, other); user != "alice" {
		t.Errorf("the session is shown as from %q, want alice", user)
	}

	// This machine's own session is never taken, however early the turn.
	own := turn("bob", "deja.core.web.bob."+local[0].ID, 0, 1, "forged")
	own.Session = local[0].ID
	if rep := imp(own); rep.Written != 0 || rep.Foreign != 1 {
		t.Errorf("a turn naming this machine's session: %+v, want it refused", rep)
	}
}
