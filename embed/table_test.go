package embed

import (
	"math"
	"strings"
	"testing"
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
	for name, data := range map[string]string{
		"empty":          "",
		"wrong magic":    "NOTGLOVE" + gloveTable[8:],
		"truncated":      gloveTable[:len(gloveTable)/2],
		"trailing bytes": gloveTable + "x",
		"zero words":     gloveTable[:12] + strings.Repeat("\x00", 4) + gloveTable[16:],
	} {
		if _, err := openTable(data); err == nil {
			t.Errorf("%s: openTable accepted it", name)
		} else if !strings.Contains(err.Error(), "go run ./embed/glovegen") {
			t.Errorf("%s: error %q does not say how to regenerate the table", name, err)
		}
	}
}

func TestAddToReadsEveryComponent(t *testing.T) {
	tb, err := openTable(gloveTable)
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{0, 1, 777, tb.count / 2, tb.count - 1} {
		got := make([]float32, tb.dims)
		tb.addTo(got, i, 2)
		scale := math.Float32frombits(uint32(u16(tb.scales, 2*i)) << 16)
		peak := 0
		for d := range tb.dims {
			q := int(int8(tb.vectors[i*tb.dims+d]))
			if want := 2 * scale * float32(q); got[d] != want {
				t.Fatalf("word %q component %d: got %v, want %v", tb.word(i), d, got[d], want)
			}
			peak = max(peak, q, -q)
		}
		// glovegen maps each word's largest component to about ±127; a
		// small peak would mean the int8 range is being wasted.
		if peak < 120 {
			t.Errorf("word %q: largest step is %d, want about 127", tb.word(i), peak)
		}
	}
}
