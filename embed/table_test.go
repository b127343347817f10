package embed

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"runtime"
	"strings"
	"testing"
)

func TestTableFindsEveryWordAtItsOwnIndex(t *testing.T) {
	tb, err := openTable(gloveTable)
	if err != nil {
		t.Fatal(err)
	}
	if tb.count != 80_080 || tb.dims != 100 {
		t.Fatalf("table has %d words of %d dimensions, want 80,080 (80,000 and 80 developer words) of 100", tb.count, tb.dims)
	}
	for i := range tb.count {
		w := tb.word(i)
		got, ok := tb.lookup([]byte(w))
		if !ok || got != i {
			t.Fatalf("word %d %q: lookup gave %d, %v", i, w, got, ok)
		}
	}
	// GloVe is in frequency order; the table must keep it, since SIF
	// weights come from the rank.
	for b := range tb.decoded {
		if _, err := tb.decodeBlock(b); err != nil {
			t.Fatal(err)
		}
	}
	for i, w := range []string{"the", "of", "to", "and"} {
		if tb.word(i) != w {
			t.Errorf("word %d is %q, want %q", i, tb.word(i), w)
		}
	}
	for _, missing := range []string{"xqzvbk", "The", "e-mail", ""} {
		if _, ok := tb.lookup([]byte(missing)); ok {
			t.Errorf("lookup found %q, which the table must not hold", missing)
		}
	}
}

func TestOpenTableRejectsDamage(t *testing.T) {
	le := binary.LittleEndian
	header := func(field int, v uint32) string {
		b := []byte(gloveTable)
		le.PutUint32(b[8+4*field:], v)
		return string(b)
	}
	count := le.Uint32([]byte(gloveTable[12:16]))
	nBlocks := (int(count) + 255) / 256
	restLen := int(le.Uint32([]byte(gloveTable[24:28])))
	restAt := 28 + 4*(nBlocks+1)
	for name, data := range map[string]string{
		"empty":          "",
		"wrong magic":    "DEJAGLV2" + gloveTable[8:],
		"truncated":      gloveTable[:len(gloveTable)/2],
		"trailing bytes": gloveTable + "x",
		"zero words":     header(1, 0),
		"odd dims":       header(0, 99),
		"huge count":     header(1, 1<<31),
		"zero per block": header(2, 0),
		"blob too long":  header(3, 1<<20),
		"rest too long":  header(4, uint32(len(gloveTable))),
		"blocks swapped": gloveTable[:28+4] + gloveTable[28+8:28+12] + gloveTable[28+4:28+8] + gloveTable[28+12:],
		"words damaged":  gloveTable[:restAt+restLen/2] + "\xff\xff\xff\xff" + gloveTable[restAt+restLen/2+4:],
	} {
		if _, err := openTable(data); err == nil {
			t.Errorf("%s: openTable accepted it", name)
		} else if !strings.Contains(err.Error(), "go run ./embed/glovegen") {
			t.Errorf("%s: error %q does not say how to regenerate the table", name, err)
		}
	}
	// A damaged vector block is found when it is read: decodeBlock says so.
	at := restAt + restLen + 100
	tb, err := openTable(gloveTable[:at] + "\xff\xff\xff\xff" + gloveTable[at+4:])
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tb.decodeBlock(0); err == nil || !strings.Contains(err.Error(), "go run ./embed/glovegen") {
		t.Errorf("damaged block 0: decodeBlock gave %v", err)
	}
}

func TestAddToReadsEveryComponent(t *testing.T) {
	tb, err := openTable(gloveTable)
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{0, 1, 255, 256, 777, tb.count / 2, tb.count - 1} {
		got := make([]float32, tb.dims)
		tb.addTo(got, i, 2)
		scale := tb.scale(i)
		vec := tb.vector(i)
		peak := 0
		for d := range tb.dims {
			n := int(vec[d/2] >> (4 * (d % 2)) & 15)
			if want := 2 * scale * (float32(n) - 7.5); got[d] != want {
				t.Fatalf("word %q component %d: got %v, want %v", tb.word(i), d, got[d], want)
			}
			peak = max(peak, n, 15-n)
		}
		// glovegen puts each word's largest component in an outermost
		// step (0 or 15); anything less would waste the 4-bit range.
		if peak != 15 {
			t.Errorf("word %q: outermost step used is %d, want 15", tb.word(i), peak)
		}
	}
}

// Opening the table decompresses the words, not the vectors, and embedding
// a query decompresses only the blocks of its words: on a first call the
// fresh memory, not the decompression, is what costs (72-84 ms for all 6 MB
// of vectors at once in a fresh process on the 2-core machine, against 6 ms
// for the same work in memory already touched).
func TestTableOpensCheaply(t *testing.T) {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	tb, err := openTable(gloveTable)
	if err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 4<<20 {
		t.Errorf("opening the table allocated %d bytes, want under 4 MiB (the vectors stay compressed)", grew)
	}
	b := &Builtin{table: tb}
	if _, err := b.Embed(context.Background(), Query, []string{"why does the tenant query miss rows"}); err != nil {
		t.Fatal(err)
	}
	decoded := 0
	for i := range tb.decoded {
		if tb.decoded[i].Load() != nil {
			decoded++
		}
	}
	if decoded == 0 || decoded > 8 {
		t.Errorf("one query decompressed %d of %d vector blocks, want a few", decoded, len(tb.decoded))
	}
}

// A table of other vectors under the same identity would mix with a
// store's vectors of the old one: the table's bytes must be the ones the
// identity names.
func TestTableChecksumNamesTheIdentity(t *testing.T) {
	sum := sha256.Sum256([]byte(gloveTable))
	if got := hex.EncodeToString(sum[:]); got != builtinTableSHA256 {
		t.Fatalf("glove100d.bin changed (SHA-256 %s, %s names %s): give BuiltinIdentity a new name and set builtinTableSHA256 to the new checksum", got, BuiltinIdentity, builtinTableSHA256)
	}
}
