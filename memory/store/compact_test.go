package store

import (
	"bytes"
	"github.com/deja-dev/deja/memory/store/segment"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
)

// messySegment writes a segment of blocks as a store's flushes leave
// them: turns in order, turns replaced by later blocks, markers killing
// earlier vectors, sessions named again by later blocks. It returns the
// file and its bytes.
func messySegment(t *testing.T, rng *rand.Rand, blocks, perBlock, dim int) (string, []byte) {
	t.Helper()
	sessions := []segment.SessionMeta{
		{Id: "s-a", Project: "/p", Harness: "aider", Origin: "a"},
		{Id: "s-b", Project: "/p", Harness: "gemini", Origin: "b", Subagent: true},
		{Id: "s-c", Project: "/q", Harness: "pi", Origin: "c", HasStart: true, StartedNS: 1234},
	}
	var file []byte
	next := int64(1)
	for range blocks {
		var enc segment.BlockEncoder
		var dead []segment.VectorKey
		seen := map[segment.VectorKey]bool{}
		for range perBlock {
			k := segment.VectorKey{TurnID: next, Part: int32(rng.IntN(2))}
			if next > 10 && rng.IntN(4) == 0 {
				k.TurnID = 1 + rng.Int64N(next-1) // replace an earlier vector
			} else {
				next++
			}
			if seen[k] {
				continue
			}
			seen[k] = true
			v := make([]float32, dim)
			for i := range v {
				v[i] = rng.Float32() - 0.5
			}
			if err := enc.Add(k, &sessions[rng.IntN(len(sessions))], segment.Normalize(v)); err != nil {
				t.Fatal(err)
			}
		}
		for range perBlock / 8 {
			dead = append(dead, segment.VectorKey{TurnID: 1 + rng.Int64N(next), Part: int32(rng.IntN(2))})
		}
		file = append(file, enc.Encode(dead)...)
	}
	path := filepath.Join(t.TempDir(), "old.seg")
	if err := os.WriteFile(path, file, 0o600); err != nil {
		t.Fatal(err)
	}
	return path, file
}

// A rewrite writes what encoding the loaded set again would: the live
// vectors less the dropped ones, as one block in key order (which a
// reader loads on its fast path), then the tail, byte for byte.
func TestCompactionWritesTheLiveVectorsInKeyOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 41))
	for _, tc := range []struct{ blocks, perBlock, dim int }{{1, 50, 8}, {6, 300, 16}, {20, 40, 3}} {
		path, file := messySegment(t, rng, tc.blocks, tc.perBlock, tc.dim)
		row := segment.SegmentRow{Length: int64(len(file))}
		set, good := segment.DecodeSegment(bytes.NewReader(file), row.Length, 0)
		if good != row.Length || set.Len() == 0 {
			t.Fatalf("the test segment does not decode: %d of %d bytes, %d vectors", good, len(file), set.Len())
		}
		var drop []segment.VectorKey
		for i, k := range set.Keys {
			if i%3 == 0 {
				drop = append(drop, k)
			}
		}
		drop = append(drop, segment.VectorKey{TurnID: 1 << 40}) // names no vector
		var tailEnc segment.BlockEncoder
		one := make([]float32, tc.dim)
		one[0] = 1
		if err := tailEnc.Add(segment.VectorKey{TurnID: 1 << 41}, &segment.SessionMeta{Id: "s-new"}, one); err != nil {
			t.Fatal(err)
		}
		tail := tailEnc.Encode(nil)

		// What the reader's set encoded again gives.
		order := []int{}
		for i, k := range set.Keys {
			if !slices.Contains(drop, k) {
				order = append(order, i)
			}
		}
		slices.SortFunc(order, func(a, b int) int { return segment.CompareKeys(set.Keys[a], set.Keys[b]) })
		var enc segment.BlockEncoder
		for _, i := range order {
			if err := enc.Add(set.Keys[i], set.Session(i), set.Vector(i)); err != nil {
				t.Fatal(err)
			}
		}
		want := append(enc.Encode(nil), tail...)

		f, l, err := segment.OpenLayout(path, segment.SegmentRow{Length: row.Length, Records: 0}, true)
		if err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(t.TempDir(), "new.seg")
		length, live, err := segment.WriteCompacted(out, f, l, drop, tail)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("%+v: the rewrite is %d bytes, encoding the set again %d; they differ", tc, len(got), len(want))
		}
		if length != int64(len(got)) || live != len(order) {
			t.Fatalf("%+v: reported %d bytes, %d vectors; wrote %d bytes, %d vectors", tc, length, live, len(got), len(order))
		}
		l2, good := segment.LayoutSegment(bytes.NewReader(got), int64(len(got)), 0)
		if good != int64(len(got)) || l2.Alive != nil {
			t.Fatalf("%+v: the rewrite reads %d of %d bytes, fast path %v", tc, good, len(got), l2.Alive == nil)
		}
	}
}

// Every vector dropped, no tail: an empty file, as the ledger expects of a
// segment with no live vector.
func TestCompactionOfNothingLeftIsEmpty(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	path, file := messySegment(t, rng, 3, 20, 4)
	f, l, err := segment.OpenLayout(path, segment.SegmentRow{Length: int64(len(file))}, true)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := filepath.Join(t.TempDir(), "new.seg")
	length, live, err := segment.WriteCompacted(out, f, l, l.Set.Keys, nil)
	if err != nil || length != 0 || live != 0 {
		t.Fatalf("%d bytes, %d vectors, %v", length, live, err)
	}
	if b, _ := os.ReadFile(out); len(b) != 0 {
		t.Fatalf("the file holds %d bytes", len(b))
	}
}

// A rewrite reads the floats from the old file as it writes them: it
// allocates a small part of what the live floats take, where loading the
// set and encoding it again allocated them twice. (The bound is a quarter
// of the floats; the keys, sessions and two 1 MB buffers of 16,000
// vectors of 512 floats take about a ninth.)
func TestCompactionHoldsNoFloatsWhole(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const dim = 512
	path, file := messySegment(t, rng, 8, 2500, dim)
	f, l, err := segment.OpenLayout(path, segment.SegmentRow{Length: int64(len(file))}, true)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	floats := uint64(l.Set.Len() * dim * 4)
	if floats < 24<<20 {
		t.Fatalf("only %d bytes of floats: too few to measure", floats)
	}
	out := filepath.Join(t.TempDir(), "new.seg")
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	if _, _, err := segment.WriteCompacted(out, f, l, nil, nil); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	t.Logf("allocated %d for %d bytes of floats", after.TotalAlloc-before.TotalAlloc, floats)
	if got := after.TotalAlloc - before.TotalAlloc; got > floats/4 {
		t.Fatalf("the rewrite allocated %d bytes for %d bytes of floats", got, floats)
	}
}

// A file that is cut short between reading its layout and its floats
// fails the rewrite as damaged, and leaves nothing claimed.
func TestCompactionOfAFileCutShortFails(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	path, file := messySegment(t, rng, 2, 100, 8)
	f, l, err := segment.OpenLayout(path, segment.SegmentRow{Length: int64(len(file))}, true)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := os.Truncate(path, int64(len(file)/2)); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "new.seg")
	if _, _, err := segment.WriteCompacted(out, f, l, nil, nil); err == nil {
		t.Fatal("a rewrite of a file cut short succeeded")
	}
}
