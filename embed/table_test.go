package embed

import (
	"encoding/binary"
	"math"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

func TestTableFindsEveryWordAtItsOwnIndex(t *testing.T) {
	tb, err := openTable(gloveTable)
	if err != nil {
		t.Fatal(err)
	}
	if tb.count < 90_000 || tb.dims != 100 {
		t.Fatalf("table has %d words of %d dimensions, want about 100k of 100", tb.count, tb.dims)
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
	frame := gloveTable[len(tableMagic):]
	for name, data := range map[string]string{
		"empty":          "",
		"wrong magic":    "DEJAGLV1" + frame,
		"truncated":      gloveTable[:len(gloveTable)/2],
		"trailing bytes": gloveTable + "x",
		"not zstd":       tableMagic + strings.Repeat("\x00", 64),
		"zero words":     repacked(t, func(raw []byte) []byte { binary.LittleEndian.PutUint32(raw[4:], 0); return raw }),
		"odd dims":       repacked(t, func(raw []byte) []byte { binary.LittleEndian.PutUint32(raw, 99); return raw }),
		"huge count":     repacked(t, func(raw []byte) []byte { binary.LittleEndian.PutUint32(raw[4:], 1<<31); return raw }),
		"short payload":  repacked(t, func(raw []byte) []byte { return raw[:len(raw)-1] }),
		"long payload":   repacked(t, func(raw []byte) []byte { return append(raw, 'x') }),
		"lengths off":    repacked(t, func(raw []byte) []byte { raw[12]++; return raw }),
	} {
		if _, err := openTable(data); err == nil {
			t.Errorf("%s: openTable accepted it", name)
		} else if !strings.Contains(err.Error(), "go run ./embed/glovegen") {
			t.Errorf("%s: error %q does not say how to regenerate the table", name, err)
		}
	}
}

// repacked returns the compiled-in table with its decompressed payload
// changed by edit.
func repacked(t *testing.T, edit func([]byte) []byte) string {
	t.Helper()
	dec, err := zstd.NewReader(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer dec.Close()
	raw, err := dec.DecodeAll([]byte(gloveTable[len(tableMagic):]), nil)
	if err != nil {
		t.Fatal(err)
	}
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest))
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Close()
	return tableMagic + string(enc.EncodeAll(edit(raw), nil))
}

func TestAddToReadsEveryComponent(t *testing.T) {
	tb, err := openTable(gloveTable)
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{0, 1, 777, tb.count / 2, tb.count - 1} {
		got := make([]float32, tb.dims)
		tb.addTo(got, i, 2)
		scale := math.Float32frombits(uint32(tb.scales[i]) << 16)
		peak := 0
		for d := range tb.dims {
			b := tb.vectors[(i*tb.dims+d)/2]
			n := int(b >> (4 * (d % 2)) & 15)
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
