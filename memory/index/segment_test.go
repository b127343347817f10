package index

import (
	"bytes"
	"context"
	"fmt"
	"github.com/deja-dev/deja/memory/memtest"
	"github.com/deja-dev/deja/memory/recall"
	"github.com/deja-dev/deja/memory/store"
	"github.com/deja-dev/deja/memory/store/segment"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// semanticSig is what a semantic recall found, by session and turn (turn
// IDs differ between stores), with the similarity to six places.
func semanticSig(t *testing.T, s *store.Store, emb *memtest.WordsEmbedder) string {
	t.Helper()
	var b strings.Builder
	for _, q := range []string{"customers see other customer's rows", "shrink the container image", "how to install the program", "tests"} {
		r, err := recall.Recall(context.Background(), s, recall.Options{Query: q, Mode: recall.Semantic, Limit: 50, Embedder: emb,
			Tuning: &recall.Tuning{FusionK: recall.FusionK, Floor: 0.01}})
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s:", q)
		for _, x := range r.Results {
			fmt.Fprintf(&b, " %s/%d=%.6f", x.SessionID, x.Turn, x.Similarity)
		}
		fmt.Fprintf(&b, " note=%q\n", r.Note)
	}
	return memtest.SessionHash.ReplaceAllString(b.String(), "aider-P-")
}

func TestSegmentHoldsTheVectorsTheLedgerDoesNot(t *testing.T) {
	s, path := memtest.Fixture(t)
	emb := memtest.NewWordsEmbedder()
	mustIndex(t, s, emb, path)
	ctx := context.Background()
	var pending, rows int
	if err := memtest.RawDB(t, s).QueryRowContext(ctx, `SELECT count(vec), count(*) FROM vectors`).Scan(&pending, &rows); err != nil {
		t.Fatal(err)
	}
	if pending != 0 || rows == 0 {
		t.Fatalf("ledger: %d of %d vector rows still hold floats, want 0 of some", pending, rows)
	}
	set, err := recall.ReadVectors(ctx, s, emb.Identity())
	if err != nil {
		t.Fatal(err)
	}
	if set.Len() == 0 || set.Len() > rows {
		t.Fatalf("segment holds %d vectors for %d ledger rows", set.Len(), rows)
	}
	for i := range set.Len() {
		var n float64
		for _, x := range set.Vector(i) {
			n += float64(x) * float64(x)
		}
		if n < 0.999 || n > 1.001 {
			t.Fatalf("vector %d has squared length %f, want unit", i, n)
		}
	}
	info, err := os.Stat(filepath.Join(s.Dir(), segment.VectorDir))
	if err != nil || info.Mode().Perm() != 0o700 {
		t.Fatalf("vectors directory: %v, mode %v, want 0700", err, info.Mode().Perm())
	}
}

// Appending to the active session rewrites its last turn, whose ID the
// ledger gives back to the rewritten turn: the segment's marker must kill
// the old vector and the new one must live, as in a store that read the
// final file once.
func TestSegmentAppendsMatchAFreshStore(t *testing.T) {
	data, err := os.ReadFile("../testdata/history.md")
	if err != nil {
		t.Fatal(err)
	}
	s, path := memtest.Fixture(t)
	emb := memtest.NewWordsEmbedder()
	cut := bytes.Index(data, []byte("#### Make the README"))
	if err := os.WriteFile(path, data[:cut], 0o644); err != nil {
		t.Fatal(err)
	}
	mustIndex(t, s, emb, path)
	// The last turn grows, then the rest arrives.
	grown := append(append([]byte{}, data[:cut]...), []byte("\nA sentence about docker layers added later.\n\n")...)
	if err := os.WriteFile(path, grown, 0o644); err != nil {
		t.Fatal(err)
	}
	mustIndex(t, s, emb, path)
	final := append(grown, data[cut:]...)
	if err := os.WriteFile(path, final, 0o644); err != nil {
		t.Fatal(err)
	}
	mustIndex(t, s, emb, path)

	fresh, fpath := memtest.Fixture(t)
	if err := os.WriteFile(fpath, final, 0o644); err != nil {
		t.Fatal(err)
	}
	mustIndex(t, fresh, emb, fpath)
	got, want := semanticSig(t, s, emb), semanticSig(t, fresh, emb)
	if got != want {
		t.Fatalf("appended store recalls\n%s\nfresh store\n%s", got, want)
	}
	_, seg := memtest.SegmentFile(t, s)
	if blocks, markers := memtest.CountBlocks(seg); blocks < 2 || markers == 0 {
		t.Fatalf("the appended segment has %d blocks and %d markers, want an appended block with a marker for the rewritten turn", blocks, markers)
	}
	a, _ := recall.ReadVectors(context.Background(), s, emb.Identity())
	b, _ := recall.ReadVectors(context.Background(), fresh, emb.Identity())
	if a.Len() != b.Len() {
		t.Fatalf("appended store holds %d live vectors, fresh %d", a.Len(), b.Len())
	}
}

func TestSegmentDamageIsReportedAndRepaired(t *testing.T) {
	s, path := memtest.Fixture(t)
	emb := memtest.NewWordsEmbedder()
	mustIndex(t, s, emb, path)
	before := semanticSig(t, s, emb)
	file, b := memtest.SegmentFile(t, s)
	b[len(b)/2] ^= 0xff
	if err := os.WriteFile(file, b, 0o600); err != nil {
		t.Fatal(err)
	}
	s.Invalidate()
	r := mustRecall(t, s, emb, "tenant", recall.Hybrid)
	if !strings.Contains(r.FallbackReason, "damaged") || !strings.Contains(r.FallbackReason, "deja index") || r.RealizedMode != recall.Keyword {
		t.Fatalf("fallback %q to %s, want keywords and a reason that says the vector file is damaged and to run deja index", r.FallbackReason, r.RealizedMode)
	}
	if len(r.Results) == 0 {
		t.Fatal("keywords must still answer while the vectors are damaged")
	}
	if _, err := os.Stat(filepath.Join(s.Dir(), segment.VectorDir, store.CheckFile)); err != nil {
		t.Fatalf("the reader left no request to check the segments: %v", err)
	}
	rep, err := Index(context.Background(), s, Options{Paths: []string{path}, Embedder: emb})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Problems) != 1 || !strings.Contains(rep.Problems[0], "damaged") || rep.Embedded == 0 {
		t.Fatalf("repair: problems %v, %d embedded; want the damage reported and its turns embedded again", rep.Problems, rep.Embedded)
	}
	if after := semanticSig(t, s, emb); after != before {
		t.Fatalf("after repair\n%s\nbefore damage\n%s", after, before)
	}
	if _, err := os.Stat(filepath.Join(s.Dir(), segment.VectorDir, store.CheckFile)); err == nil {
		t.Fatal("the check request outlived the repair")
	}
	// A missing file is damage too.
	file, _ = memtest.SegmentFile(t, s)
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	rep, err = Index(context.Background(), s, Options{Paths: []string{path}, Embedder: emb})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Embedded == 0 {
		t.Fatalf("a missing segment: %d turns embedded again, want all; problems %v", rep.Embedded, rep.Problems)
	}
	if after := semanticSig(t, s, emb); after != before {
		t.Fatalf("after a missing file\n%s\nbefore\n%s", after, before)
	}
}

// Bytes past the committed length (a flush whose transaction never
// committed) are not read, and the next flush writes over them.
func TestSegmentIgnoresAnUncommittedTail(t *testing.T) {
	data, err := os.ReadFile("../testdata/history.md")
	if err != nil {
		t.Fatal(err)
	}
	s, path := memtest.Fixture(t)
	emb := memtest.NewWordsEmbedder()
	cut := bytes.Index(data, []byte("# aider chat started at 2026-07-18"))
	if err := os.WriteFile(path, data[:cut], 0o644); err != nil {
		t.Fatal(err)
	}
	mustIndex(t, s, emb, path)
	file, b := memtest.SegmentFile(t, s)
	// A whole, valid block the ledger never committed: were it read, its
	// vector would be found.
	var enc segment.BlockEncoder
	if err := enc.Add(segment.VectorKey{TurnID: 999}, &segment.SessionMeta{Id: "ghost"}, segment.Normalize(make64(1))); err != nil {
		t.Fatal(err)
	}
	ghost := enc.Encode(nil)
	if err := os.WriteFile(file, append(b, ghost...), 0o600); err != nil {
		t.Fatal(err)
	}
	s.Invalidate()
	set, err := recall.ReadVectors(context.Background(), s, emb.Identity())
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range set.Keys {
		if k.TurnID == 999 {
			t.Fatal("the uncommitted block was read")
		}
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	mustIndex(t, s, emb, path)
	_, b = memtest.SegmentFile(t, s)
	if bytes.Contains(b, []byte("ghost")) {
		t.Fatal("the next flush left the uncommitted block in the file")
	}
	fresh, fpath := memtest.Fixture(t)
	mustIndex(t, fresh, emb, fpath)
	got, want := semanticSig(t, s, emb), semanticSig(t, fresh, emb)
	if got != want {
		t.Fatalf("after the tail\n%s\nfresh\n%s", got, want)
	}
}

func make64(hot int) []float32 {
	v := make([]float32, 64)
	v[hot] = 1
	return v
}

// Forgetting rewrites the segment without the session: its ID and its
// vectors leave the file, and the replaced file is gone.
func TestForgetRewritesTheSegment(t *testing.T) {
	s, path := memtest.Fixture(t)
	emb := memtest.NewWordsEmbedder()
	mustIndex(t, s, emb, path)
	ctx := context.Background()
	ids, err := store.QueryStrings(ctx, memtest.RawDB(t, s), `SELECT id FROM sessions ORDER BY ordinal`)
	if err != nil || len(ids) != 2 {
		t.Fatalf("sessions %v, %v", ids, err)
	}
	old, b := memtest.SegmentFile(t, s)
	if !bytes.Contains(b, []byte(ids[0])) {
		t.Fatalf("the segment does not name session %s before the forget", ids[0])
	}
	before, _ := recall.ReadVectors(ctx, s, emb.Identity())
	if err := s.Forget(ctx, ids[:1], store.LockOptions{}); err != nil {
		t.Fatal(err)
	}
	file, b := memtest.SegmentFile(t, s)
	if file == old {
		t.Fatal("forget appended to the segment instead of rewriting it")
	}
	if bytes.Contains(b, []byte(ids[0])) {
		t.Fatal("the rewritten segment still names the forgotten session")
	}
	after, err := recall.ReadVectors(ctx, s, emb.Identity())
	if err != nil {
		t.Fatal(err)
	}
	var rows int
	if err := memtest.RawDB(t, s).QueryRowContext(ctx, `SELECT count(*) FROM vectors v JOIN turns t ON t.id = v.turn_id JOIN sessions s ON s.id = t.session_id`).Scan(&rows); err != nil {
		t.Fatal(err)
	}
	for i := range after.Len() {
		if after.Session(i).Id == ids[0] {
			t.Fatal("a forgotten session's vector is live")
		}
	}
	if after.Len() == 0 || after.Len() >= before.Len() {
		t.Fatalf("%d live vectors after the forget, %d before", after.Len(), before.Len())
	}
	if _, err := os.Stat(old); err == nil {
		t.Fatal("the replaced segment file is still there")
	}
}

// FuzzDecodeSegment: whatever the bytes, decoding neither panics nor
// claims more than it read, and a valid block followed by junk keeps the
// block.
func FuzzDecodeSegment(f *testing.F) {
	var enc segment.BlockEncoder
	_ = enc.Add(segment.VectorKey{TurnID: 1}, &segment.SessionMeta{Id: "s", Project: "/p"}, segment.Normalize(make64(2)))
	valid := enc.Encode([]segment.VectorKey{{TurnID: 7, Part: 1}})
	f.Add(valid)
	f.Add(append(append([]byte{}, valid...), valid[:30]...))
	f.Add([]byte("DJV1\xff\xff\xff\xff"))
	f.Fuzz(func(t *testing.T, b []byte) {
		set, good := segment.DecodeSegment(bytes.NewReader(b), int64(len(b)), 0)
		if good < 0 || good > int64(len(b)) || len(set.Keys) != len(set.Of) || len(set.Vecs) != len(set.Keys)*set.Dim {
			t.Fatalf("decoded %d of %d bytes into %d keys, %d of, %d floats of %d", good, len(b), len(set.Keys), len(set.Of), len(set.Vecs), set.Dim)
		}
		if bytes.HasPrefix(b, valid) && (good < int64(len(valid)) || set.Len() != 1) {
			t.Fatalf("a valid first block was lost: %d bytes good, %d vectors", good, set.Len())
		}
	})
}

// A store of schema 5 kept the floats in the ledger: opening it moves them
// to a segment in the upgrade's transaction, and recall finds the same.
func TestSchemaUpgradeFrom5MovesTheVectors(t *testing.T) {
	s, path := memtest.Fixture(t)
	emb := memtest.NewWordsEmbedder()
	mustIndex(t, s, emb, path)
	want := semanticSig(t, s, emb)
	ctx := context.Background()
	set, err := recall.ReadVectors(ctx, s, emb.Identity())
	if err != nil {
		t.Fatal(err)
	}
	toSchema6(t, s)
	// Schema 5: vec NOT NULL and holding the floats, no segment tables.
	for _, stmt := range []string{
		`DROP TRIGGER vectors_dead`, `DROP INDEX vectors_pending`, `DROP INDEX sessions_subagents`,
		`DROP TABLE vector_dead`, `DROP TABLE segments`,
		`CREATE TABLE v5 (embedder TEXT NOT NULL, project TEXT NOT NULL, turn_id INTEGER NOT NULL REFERENCES turns(id) ON DELETE CASCADE,
			part INTEGER NOT NULL, session_id TEXT NOT NULL, turn INTEGER NOT NULL, vec BLOB NOT NULL,
			PRIMARY KEY (embedder, project, turn_id, part)) WITHOUT ROWID`,
		`INSERT INTO v5 SELECT embedder, project, turn_id, part, session_id, turn, x'' FROM vectors`,
		`DROP TABLE vectors`, `ALTER TABLE v5 RENAME TO vectors`, `CREATE INDEX vectors_turn ON vectors(turn_id)`,
		`UPDATE meta SET value = '5' WHERE key = 'schema'`,
	} {
		if _, err := memtest.RawDB(t, s).ExecContext(ctx, stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	for i, k := range set.Keys {
		if _, err := memtest.RawDB(t, s).ExecContext(ctx, `UPDATE vectors SET vec = ? WHERE turn_id = ? AND part = ?`, segment.EncodeVector(set.Vector(i)), k.TurnID, k.Part); err != nil {
			t.Fatal(err)
		}
	}
	file, _ := memtest.SegmentFile(t, s)
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	dir := s.Dir()
	s.Close()
	s2, err := store.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if got := semanticSig(t, s2, emb); got != want {
		t.Fatalf("after the upgrade\n%s\nbefore\n%s", got, want)
	}
	var pending int
	if err := memtest.RawDB(t, s2).QueryRowContext(ctx, `SELECT count(vec) FROM vectors`).Scan(&pending); err != nil || pending != 0 {
		t.Fatalf("%d ledger rows still hold floats (%v)", pending, err)
	}
	memtest.SegmentFile(t, s2)
}
