package recall

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"github.com/deja-dev/deja/memory/memtest"
	"github.com/deja-dev/deja/memory/store"
	"github.com/deja-dev/deja/memory/store/segment"
	"hash/crc32"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// oneShotStores indexes the fixture and two generated projects into a
// store, grows and re-reads the history so the segment holds markers and
// replaced vectors, and opens the store twice more: each recall of a
// one-shot store reads the segment afresh.
func oneShotStores(t *testing.T) (loaded *store.Store, once []*store.Store, emb *memtest.WordsEmbedder) {
	t.Helper()
	data, err := os.ReadFile("../testdata/history.md")
	if err != nil {
		t.Fatal(err)
	}
	s, path := memtest.Fixture(t)
	emb = memtest.NewWordsEmbedder()
	cut := bytes.Index(data, []byte("#### Make the README"))
	if err := os.WriteFile(path, data[:cut], 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	other := memtest.ManyTurns(t, filepath.Join(dir, "a"), 300)
	mustIndex(t, s, emb, path, other)
	// The last turn grows, then the rest arrives: markers and replaced
	// vectors in later blocks.
	grown := append(append([]byte{}, data[:cut]...), []byte("\nA sentence about docker layers added later.\n\n")...)
	if err := os.WriteFile(path, grown, 0o644); err != nil {
		t.Fatal(err)
	}
	mustIndex(t, s, emb, path)
	if err := os.WriteFile(path, append(grown, data[cut:]...), 0o644); err != nil {
		t.Fatal(err)
	}
	mustIndex(t, s, emb, path, memtest.ManyTurns(t, filepath.Join(dir, "b"), 150))
	_, seg := memtest.SegmentFile(t, s)
	if blocks, markers := memtest.CountBlocks(seg); blocks < 2 || markers == 0 {
		t.Fatalf("the segment has %d blocks and %d markers, want later blocks that kill earlier vectors", blocks, markers)
	}
	for _, piece := range []int{0, 1, 37} {
		o, err := store.Open(context.Background(), s.Dir())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { o.Close() })
		o.Piece = piece
		once = append(once, o)
	}
	return s, once, emb
}

// TestOneShotRecallsAsALoadedStore checks that a recall reading the
// segment a piece at a time answers exactly as one over loaded
// collections, in every mode and scope, whatever the piece size; and that
// it keeps nothing loaded.
func TestOneShotRecallsAsALoadedStore(t *testing.T) {
	loaded, once, emb := oneShotStores(t)
	ctx := context.Background()
	sessions, err := store.QueryStrings(ctx, memtest.RawDB(t, loaded), `SELECT id FROM sessions ORDER BY id`)
	if err != nil || len(sessions) < 3 {
		t.Fatalf("sessions %v, %v", sessions, err)
	}
	projects, err := store.QueryStrings(ctx, memtest.RawDB(t, loaded), `SELECT DISTINCT project FROM sessions ORDER BY project`)
	if err != nil || len(projects) != 3 {
		t.Fatalf("projects %v, %v", projects, err)
	}
	scopes := []Scope{
		{},
		{Since: time.Date(2026, 3, 10, 0, 0, 0, 0, time.UTC)},
		{Until: time.Date(2026, 3, 10, 0, 0, 0, 0, time.UTC)},
		{Session: sessions[len(sessions)/2]},
		{Project: projects[0]},
		{Harness: "aider"},
		{Harness: "claude"},
		{Mine: true},
	}
	queries := []string{"tenant rows leak between customers", "container image", "how are you?", "retry upload windows",
		"customers see other customer's rows", "query.go", "xyzzy"}
	found := 0
	for _, sc := range scopes {
		for _, q := range queries {
			for _, mode := range []Mode{Hybrid, Semantic} {
				opts := Options{Query: q, Mode: mode, Embedder: emb, Scope: sc, Limit: 20}
				want, err := Recall(ctx, loaded, opts)
				if err != nil {
					t.Fatal(err)
				}
				want.Took = 0
				found += len(want.Results)
				for _, o := range once {
					opts.Once = true
					got, err := Recall(ctx, o, opts)
					if err != nil {
						t.Fatal(err)
					}
					got.Took = 0
					if !reflect.DeepEqual(got, want) {
						t.Fatalf("%s %q in %+v, pieces of %d:\none-shot %+v\nloaded   %+v", mode, q, sc, o.Piece, got, want)
					}
				}
			}
		}
	}
	if found == 0 {
		t.Fatal("no recall found anything: the comparison proves nothing")
	}
	for _, o := range once {
		if holds(o, emb.Identity()) || rc(o).loads.Load() != 0 {
			t.Fatalf("a one-shot store kept its vectors (holds %v, %d loads)", holds(o, emb.Identity()), rc(o).loads.Load())
		}
	}
	// A one-shot recall on a store that holds the vectors uses them.
	if !holds(loaded, emb.Identity()) {
		t.Fatal("the loaded store holds no vectors")
	}
	before := rc(loaded).loads.Load()
	if _, err := Recall(ctx, loaded, Options{Query: "container image", Embedder: emb, Once: true}); err != nil {
		t.Fatal(err)
	}
	if rc(loaded).loads.Load() != before {
		t.Fatal("a one-shot recall on a loaded store read the segment again")
	}
}

// TestLayoutAndScanReadWhatALoadReads checks the two reads of a one-shot
// recall against decodeSegment on a segment with killed and replaced
// vectors: the same keys, sessions and floats, in the same order.
func TestLayoutAndScanReadWhatALoadReads(t *testing.T) {
	loaded, _, _ := oneShotStores(t)
	file, b := memtest.SegmentFile(t, loaded)
	want, good := segment.DecodeSegment(bytes.NewReader(b), int64(len(b)), 0)
	if good != int64(len(b)) || want.Len() == 0 {
		t.Fatalf("decode read %d of %d bytes, %d vectors", good, len(b), want.Len())
	}
	l, good := segment.LayoutSegment(bytes.NewReader(b), int64(len(b)), 0)
	if good != int64(len(b)) || l.Alive == nil {
		t.Fatalf("layout read %d of %d bytes (alive %v): want all, with records killed", good, len(b), l.Alive != nil)
	}
	if !reflect.DeepEqual(l.Set.Keys, want.Keys) || !reflect.DeepEqual(l.Set.Of, want.Of) || !reflect.DeepEqual(l.Set.Sessions, want.Sessions) || l.Set.Vecs != nil {
		t.Fatal("the layout's keys, sessions or floats differ from a load's")
	}
	for _, perPiece := range []int{1, 5, 1000} {
		var idx []int32
		var vecs []float32
		v := segment.ScanVisitor{InOrder: func(p *segment.VectorPiece) {
			idx = append(idx, p.Idx...)
			vecs = append(vecs, p.Vecs...)
		}, Work: func(*segment.VectorPiece) {}}
		if err := l.Scan(context.Background(), bytes.NewReader(b), perPiece, v); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(vecs, want.Vecs) || len(idx) != want.Len() {
			t.Fatalf("pieces of %d: scanned %d vectors, a load holds %d, or their floats differ", perPiece, len(idx), want.Len())
		}
		for i, x := range idx {
			if int(x) != i {
				t.Fatalf("pieces of %d: vector %d came as index %d", perPiece, i, x)
			}
		}
	}

	// A file changed after its layout was read fails the scan, and is not
	// read as vectors.
	b[l.Blocks[0].Floats] ^= 0x40
	if err := os.WriteFile(file, b, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	v := segment.ScanVisitor{InOrder: func(*segment.VectorPiece) {}, Work: func(*segment.VectorPiece) {}}
	if err := l.Scan(context.Background(), f, 3, v); !errors.Is(err, segment.ErrSegmentDamaged) {
		t.Fatalf("scan of a changed file: %v, want it damaged", err)
	}
}

// TestOneShotOnADamagedSegment: a one-shot recall of a damaged segment
// answers by keywords, says why and what to do, and asks the next index
// run to check the segments, as a loading recall does.
func TestOneShotOnADamagedSegment(t *testing.T) {
	s, path := memtest.Fixture(t)
	emb := memtest.NewWordsEmbedder()
	mustIndex(t, s, emb, path)
	file, b := memtest.SegmentFile(t, s)
	b[len(b)/2] ^= 0xff
	if err := os.WriteFile(file, b, 0o600); err != nil {
		t.Fatal(err)
	}
	r, err := Recall(context.Background(), s, Options{Query: "tenant", Mode: Hybrid, Embedder: emb, Limit: 5, Once: true})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(r.FallbackReason, "damaged") || !strings.Contains(r.FallbackReason, "deja index") || r.RealizedMode != Keyword || len(r.Results) == 0 {
		t.Fatalf("fallback %q to %s with %d results, want keywords that answer and a reason naming the damage and deja index", r.FallbackReason, r.RealizedMode, len(r.Results))
	}
	if _, err := os.Stat(filepath.Join(s.Dir(), segment.VectorDir, store.CheckFile)); err != nil {
		t.Fatalf("the one-shot reader left no request to check the segments: %v", err)
	}
}

// TestEqualChunksAtTheCutRecallTheSame: when a project holds more equally
// similar chunks than a query keeps of it, which make the cut must not
// depend on the order chromem-go's goroutines met them (it did: the same
// recall ranked different turns from one run to the next).
func TestEqualChunksAtTheCutRecallTheSame(t *testing.T) {
	s, _ := memtest.Fixture(t)
	dir := t.TempDir()
	project := filepath.Join(dir, "same")
	if err := os.MkdirAll(project, 0o755); err != nil {
		t.Fatal(err)
	}
	var hist strings.Builder
	for i := range 3 * semanticDepth {
		if i%10 == 0 {
			fmt.Fprintf(&hist, "\n# aider chat started at 2026-04-%02d 10:%02d:00\n\n", 1+i/300, i/10%60)
		}
		// Every turn the same text: equal vectors, equal similarities.
		hist.WriteString("#### rotate the deploy credentials\n\nRotated the deploy credentials.\n\n")
	}
	path := filepath.Join(project, ".aider.chat.history.md")
	if err := os.WriteFile(path, []byte(hist.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	emb := memtest.NewWordsEmbedder()
	mustIndex(t, s, emb, path)
	ctx := context.Background()
	var first []Result
	for run := range 12 {
		s.Invalidate()
		r, err := Recall(ctx, s, Options{Query: "rotate credentials", Mode: Semantic, Embedder: emb, Limit: 10, Once: run%2 == 1})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Results) != 10 {
			t.Fatalf("%d results, want 10", len(r.Results))
		}
		if run == 0 {
			first = r.Results
			continue
		}
		if !reflect.DeepEqual(r.Results, first) {
			t.Fatalf("run %d ranked %s/%d first, run 0 %s/%d", run, r.Results[0].SessionID, r.Results[0].Turn, first[0].SessionID, first[0].Turn)
		}
	}
}

// TestLayoutOrScanCatchesEveryDamagedByte: a one-shot recall reads the
// segment twice, the layout and then the floats; a byte damaged anywhere
// in it (a block of markers only, a header, the floats, a checksum) must
// fail one of the two reads, never give vectors.
func TestLayoutOrScanCatchesEveryDamagedByte(t *testing.T) {
	loaded, _, _ := oneShotStores(t)
	_, b := memtest.SegmentFile(t, loaded)
	whole, _ := segment.LayoutSegment(bytes.NewReader(b), int64(len(b)), 0)
	// A block of markers only, as a commit that deleted vectors and wrote
	// none appends: it kills the first and the last vector.
	keys := whole.Set.Keys
	b = append(b, markersBlock(whole.Set.Dim, keys[0], keys[len(keys)-1])...)
	l, good := segment.LayoutSegment(bytes.NewReader(b), int64(len(b)), 0)
	if good != int64(len(b)) {
		t.Fatalf("layout of the whole segment read %d of %d bytes", good, len(b))
	}
	markersOnly, withFloats := 0, 0
	for _, span := range l.Blocks {
		if span.Records == 0 {
			markersOnly++
		} else {
			withFloats++
		}
	}
	if markersOnly == 0 || withFloats == 0 {
		t.Fatalf("%d blocks of markers only, %d with floats: the test needs both", markersOnly, withFloats)
	}
	// Every byte of a block of markers only, of the first 64 of each
	// block and of its checksum; one in 31 of the rest of the headers, one
	// in 409 of the floats (the scan checks each block as one run of
	// bytes).
	var at []int
	for _, span := range l.Blocks {
		for i := span.Start; i < span.End; i++ {
			switch {
			case span.Records == 0, i < span.Start+64, i >= span.End-4,
				i < span.Floats && (i-span.Start)%31 == 0, (i-span.Floats)%409 == 0:
				at = append(at, int(i))
			}
		}
	}
	for _, at := range at {
		damaged := bytes.Clone(b)
		damaged[at] ^= 0x5a
		l, good := segment.LayoutSegment(bytes.NewReader(damaged), int64(len(damaged)), 0)
		if good != int64(len(damaged)) {
			continue
		}
		v := segment.ScanVisitor{InOrder: func(*segment.VectorPiece) {}, Work: func(*segment.VectorPiece) {}}
		if err := l.Scan(context.Background(), bytes.NewReader(damaged), 4, v); !errors.Is(err, segment.ErrSegmentDamaged) {
			t.Fatalf("byte %d of %d damaged: the layout read it all and the scan said %v", at, len(b), err)
		}
	}
}

// markersBlock encodes a segment block that kills the vectors of keys and
// holds none.
func markersBlock(dim int, keys ...segment.VectorKey) []byte {
	b := []byte(segment.SegmentMagic)
	for _, v := range []int{dim, 0, len(keys), 0} {
		b = binary.LittleEndian.AppendUint32(b, uint32(v))
	}
	for _, k := range keys {
		b = binary.LittleEndian.AppendUint64(b, uint64(k.TurnID))
		b = binary.LittleEndian.AppendUint32(b, uint32(k.Part))
	}
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, segment.Castagnoli))
}
