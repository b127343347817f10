package memory

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// sessionHash is the part of an aider session ID that comes from its path.
var sessionHash = regexp.MustCompile(`aider-[0-9a-f]{12}-`)

// semanticSig is what a semantic recall found, by session and turn (turn
// IDs differ between stores), with the similarity to six places.
func semanticSig(t *testing.T, s *Store, emb *wordsEmbedder) string {
	t.Helper()
	var b strings.Builder
	for _, q := range []string{"customers see other customer's rows", "shrink the container image", "how to install the program", "tests"} {
		r, err := s.Recall(context.Background(), RecallOptions{Query: q, Mode: Semantic, Limit: 50, Embedder: emb,
			Tuning: &Tuning{FusionK: FusionK, Floor: 0.01}})
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s:", q)
		for _, x := range r.Results {
			fmt.Fprintf(&b, " %s/%d=%.6f", x.SessionID, x.Turn, x.Similarity)
		}
		fmt.Fprintf(&b, " note=%q\n", r.Note)
	}
	return sessionHash.ReplaceAllString(b.String(), "aider-P-")
}

// segmentFile is the one segment file of the store, read whole.
func segmentFile(t *testing.T, s *Store) (string, []byte) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(s.Dir(), VectorDir, "*.seg"))
	if len(files) != 1 {
		t.Fatalf("segment files %v, want one", files)
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	return files[0], b
}

func TestSegmentHoldsTheVectorsTheLedgerDoesNot(t *testing.T) {
	s, path := fixture(t)
	emb := newWordsEmbedder()
	mustIndex(t, s, emb, path)
	ctx := context.Background()
	var pending, rows int
	if err := rawDB(t, s).QueryRowContext(ctx, `SELECT count(vec), count(*) FROM vectors`).Scan(&pending, &rows); err != nil {
		t.Fatal(err)
	}
	if pending != 0 || rows == 0 {
		t.Fatalf("ledger: %d of %d vector rows still hold floats, want 0 of some", pending, rows)
	}
	set, err := s.readVectors(ctx, emb.Identity())
	if err != nil {
		t.Fatal(err)
	}
	if set.len() == 0 || set.len() > rows {
		t.Fatalf("segment holds %d vectors for %d ledger rows", set.len(), rows)
	}
	for i := range set.len() {
		var n float64
		for _, x := range set.vector(i) {
			n += float64(x) * float64(x)
		}
		if n < 0.999 || n > 1.001 {
			t.Fatalf("vector %d has squared length %f, want unit", i, n)
		}
	}
	info, err := os.Stat(filepath.Join(s.Dir(), VectorDir))
	if err != nil || info.Mode().Perm() != 0o700 {
		t.Fatalf("vectors directory: %v, mode %v, want 0700", err, info.Mode().Perm())
	}
}

// Appending to the active session rewrites its last turn, whose ID the
// ledger gives back to the rewritten turn: the segment's marker must kill
// the old vector and the new one must live, as in a store that read the
// final file once.
func TestSegmentAppendsMatchAFreshStore(t *testing.T) {
	data, err := os.ReadFile("testdata/history.md")
	if err != nil {
		t.Fatal(err)
	}
	s, path := fixture(t)
	emb := newWordsEmbedder()
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

	fresh, fpath := fixture(t)
	if err := os.WriteFile(fpath, final, 0o644); err != nil {
		t.Fatal(err)
	}
	mustIndex(t, fresh, emb, fpath)
	got, want := semanticSig(t, s, emb), semanticSig(t, fresh, emb)
	if got != want {
		t.Fatalf("appended store recalls\n%s\nfresh store\n%s", got, want)
	}
	_, seg := segmentFile(t, s)
	if blocks, markers := countBlocks(seg); blocks < 2 || markers == 0 {
		t.Fatalf("the appended segment has %d blocks and %d markers, want an appended block with a marker for the rewritten turn", blocks, markers)
	}
	a, _ := s.readVectors(context.Background(), emb.Identity())
	b, _ := fresh.readVectors(context.Background(), emb.Identity())
	if a.len() != b.len() {
		t.Fatalf("appended store holds %d live vectors, fresh %d", a.len(), b.len())
	}
}

func TestSegmentDamageIsReportedAndRepaired(t *testing.T) {
	s, path := fixture(t)
	emb := newWordsEmbedder()
	mustIndex(t, s, emb, path)
	before := semanticSig(t, s, emb)
	file, b := segmentFile(t, s)
	b[len(b)/2] ^= 0xff
	if err := os.WriteFile(file, b, 0o600); err != nil {
		t.Fatal(err)
	}
	s.Invalidate()
	r := mustRecall(t, s, emb, "tenant", Hybrid)
	if !strings.Contains(r.FallbackReason, "damaged") || !strings.Contains(r.FallbackReason, "deja index") || r.RealizedMode != Keyword {
		t.Fatalf("fallback %q to %s, want keywords and a reason that says the vector file is damaged and to run deja index", r.FallbackReason, r.RealizedMode)
	}
	if len(r.Results) == 0 {
		t.Fatal("keywords must still answer while the vectors are damaged")
	}
	if _, err := os.Stat(filepath.Join(s.Dir(), VectorDir, checkFile)); err != nil {
		t.Fatalf("the reader left no request to check the segments: %v", err)
	}
	rep, err := s.Index(context.Background(), IndexOptions{Paths: []string{path}, Embedder: emb})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Problems) != 1 || !strings.Contains(rep.Problems[0], "damaged") || rep.Embedded == 0 {
		t.Fatalf("repair: problems %v, %d embedded; want the damage reported and its turns embedded again", rep.Problems, rep.Embedded)
	}
	if after := semanticSig(t, s, emb); after != before {
		t.Fatalf("after repair\n%s\nbefore damage\n%s", after, before)
	}
	if _, err := os.Stat(filepath.Join(s.Dir(), VectorDir, checkFile)); err == nil {
		t.Fatal("the check request outlived the repair")
	}
	// A missing file is damage too.
	file, _ = segmentFile(t, s)
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	rep, err = s.Index(context.Background(), IndexOptions{Paths: []string{path}, Embedder: emb})
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
	data, err := os.ReadFile("testdata/history.md")
	if err != nil {
		t.Fatal(err)
	}
	s, path := fixture(t)
	emb := newWordsEmbedder()
	cut := bytes.Index(data, []byte("# aider chat started at 2026-07-18"))
	if err := os.WriteFile(path, data[:cut], 0o644); err != nil {
		t.Fatal(err)
	}
	mustIndex(t, s, emb, path)
	file, b := segmentFile(t, s)
	// A whole, valid block the ledger never committed: were it read, its
	// vector would be found.
	var enc blockEncoder
	if err := enc.add(vectorKey{turnID: 999}, &sessionMeta{id: "ghost"}, normalize(make64(1))); err != nil {
		t.Fatal(err)
	}
	ghost := enc.encode(nil)
	if err := os.WriteFile(file, append(b, ghost...), 0o600); err != nil {
		t.Fatal(err)
	}
	s.Invalidate()
	set, err := s.readVectors(context.Background(), emb.Identity())
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range set.keys {
		if k.turnID == 999 {
			t.Fatal("the uncommitted block was read")
		}
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	mustIndex(t, s, emb, path)
	_, b = segmentFile(t, s)
	if bytes.Contains(b, []byte("ghost")) {
		t.Fatal("the next flush left the uncommitted block in the file")
	}
	fresh, fpath := fixture(t)
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
	s, path := fixture(t)
	emb := newWordsEmbedder()
	mustIndex(t, s, emb, path)
	ctx := context.Background()
	ids, err := queryStrings(ctx, rawDB(t, s), `SELECT id FROM sessions ORDER BY ordinal`)
	if err != nil || len(ids) != 2 {
		t.Fatalf("sessions %v, %v", ids, err)
	}
	old, b := segmentFile(t, s)
	if !bytes.Contains(b, []byte(ids[0])) {
		t.Fatalf("the segment does not name session %s before the forget", ids[0])
	}
	before, _ := s.readVectors(ctx, emb.Identity())
	if err := s.Forget(ctx, ids[:1], LockOptions{}); err != nil {
		t.Fatal(err)
	}
	file, b := segmentFile(t, s)
	if file == old {
		t.Fatal("forget appended to the segment instead of rewriting it")
	}
	if bytes.Contains(b, []byte(ids[0])) {
		t.Fatal("the rewritten segment still names the forgotten session")
	}
	after, err := s.readVectors(ctx, emb.Identity())
	if err != nil {
		t.Fatal(err)
	}
	var rows int
	if err := rawDB(t, s).QueryRowContext(ctx, `SELECT count(*) FROM vectors v JOIN turns t ON t.id = v.turn_id JOIN sessions s ON s.id = t.session_id`).Scan(&rows); err != nil {
		t.Fatal(err)
	}
	for i := range after.len() {
		if after.session(i).id == ids[0] {
			t.Fatal("a forgotten session's vector is live")
		}
	}
	if after.len() == 0 || after.len() >= before.len() {
		t.Fatalf("%d live vectors after the forget, %d before", after.len(), before.len())
	}
	if _, err := os.Stat(old); err == nil {
		t.Fatal("the replaced segment file is still there")
	}
}

// countBlocks counts the blocks of a segment and the markers they hold.
func countBlocks(b []byte) (blocks, markers int) {
	for len(b) >= blockHead {
		n := int(binary.LittleEndian.Uint32(b[8:]))
		nd := int(binary.LittleEndian.Uint32(b[12:]))
		ns := int(binary.LittleEndian.Uint32(b[16:]))
		dim := int(binary.LittleEndian.Uint32(b[4:]))
		p := blockHead + 12*nd
		for range ns {
			for range 4 {
				p += 2 + int(binary.LittleEndian.Uint16(b[p:]))
			}
			p += 10
		}
		p += n*16 + n*4*dim + 4
		blocks++
		markers += nd
		b = b[p:]
	}
	return blocks, markers
}

// FuzzDecodeSegment: whatever the bytes, decoding neither panics nor
// claims more than it read, and a valid block followed by junk keeps the
// block.
func FuzzDecodeSegment(f *testing.F) {
	var enc blockEncoder
	_ = enc.add(vectorKey{turnID: 1}, &sessionMeta{id: "s", project: "/p"}, normalize(make64(2)))
	valid := enc.encode([]vectorKey{{turnID: 7, part: 1}})
	f.Add(valid)
	f.Add(append(append([]byte{}, valid...), valid[:30]...))
	f.Add([]byte("DJV1\xff\xff\xff\xff"))
	f.Fuzz(func(t *testing.T, b []byte) {
		set, good := decodeSegment(bytes.NewReader(b), int64(len(b)), 0)
		if good < 0 || good > int64(len(b)) || len(set.keys) != len(set.of) || len(set.vecs) != len(set.keys)*set.dim {
			t.Fatalf("decoded %d of %d bytes into %d keys, %d of, %d floats of %d", good, len(b), len(set.keys), len(set.of), len(set.vecs), set.dim)
		}
		if bytes.HasPrefix(b, valid) && (good < int64(len(valid)) || set.len() != 1) {
			t.Fatalf("a valid first block was lost: %d bytes good, %d vectors", good, set.len())
		}
	})
}

// A store of schema 5 kept the floats in the ledger: opening it moves them
// to a segment in the upgrade's transaction, and recall finds the same.
func TestSchemaUpgradeFrom5MovesTheVectors(t *testing.T) {
	s, path := fixture(t)
	emb := newWordsEmbedder()
	mustIndex(t, s, emb, path)
	want := semanticSig(t, s, emb)
	ctx := context.Background()
	set, err := s.readVectors(ctx, emb.Identity())
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
		if _, err := rawDB(t, s).ExecContext(ctx, stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	for i, k := range set.keys {
		if _, err := rawDB(t, s).ExecContext(ctx, `UPDATE vectors SET vec = ? WHERE turn_id = ? AND part = ?`, encodeVector(set.vector(i)), k.turnID, k.part); err != nil {
			t.Fatal(err)
		}
	}
	file, _ := segmentFile(t, s)
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	dir := s.Dir()
	s.Close()
	s2, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if got := semanticSig(t, s2, emb); got != want {
		t.Fatalf("after the upgrade\n%s\nbefore\n%s", got, want)
	}
	var pending int
	if err := rawDB(t, s2).QueryRowContext(ctx, `SELECT count(vec) FROM vectors`).Scan(&pending); err != nil || pending != 0 {
		t.Fatalf("%d ledger rows still hold floats (%v)", pending, err)
	}
	segmentFile(t, s2)
}
