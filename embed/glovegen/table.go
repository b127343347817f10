package main

import (
	"encoding/binary"
	"io"
	"math"
	"math/bits"
)

// table is the binary word table that embed/table.go reads; the layout is
// documented there, and the two must change together.
type table struct {
	vocab *vocabulary
}

func buildTable(v *vocabulary) table { return table{vocab: v} }

const magic = "DEJAGLV1"

// WriteTo writes the table: header, offsets, hash slots, scales, int8
// vectors, word bytes. Everything is little-endian.
func (t table) WriteTo(w io.Writer) (int64, error) {
	words := t.vocab.words
	count := len(words)

	var blob []byte
	offsets := make([]uint32, 0, count+1)
	for _, word := range words {
		offsets = append(offsets, uint32(len(blob)))
		blob = append(blob, word...)
	}
	offsets = append(offsets, uint32(len(blob)))

	slots := hashSlots(words)

	scales := make([]uint16, count)
	vectors := make([]byte, count*dims)
	for i, vec := range t.vocab.vectors {
		scales[i] = quantize(vec[:], vectors[i*dims:(i+1)*dims])
	}

	cw := &countingWriter{w: w}
	le := binary.LittleEndian
	cw.write([]byte(magic))
	for _, n := range []uint32{dims, uint32(count), uint32(len(slots)), uint32(len(blob))} {
		cw.write(le.AppendUint32(nil, n))
	}
	buf := make([]byte, 0, 4*len(slots))
	for _, o := range offsets {
		buf = le.AppendUint32(buf, o)
	}
	cw.write(buf)
	buf = buf[:0]
	for _, s := range slots {
		buf = le.AppendUint32(buf, s)
	}
	cw.write(buf)
	buf = buf[:0]
	for _, s := range scales {
		buf = le.AppendUint16(buf, s)
	}
	cw.write(buf)
	cw.write(vectors)
	cw.write(blob)
	return cw.n, cw.err
}

// quantize stores vec as int8 steps of one per-word scale, chosen so the
// largest component maps to about ±127, and returns the scale as bfloat16
// (the top half of a float32). Scales in bfloat16 keep the table under
// 12 MB; the scale is rounded up before the steps are computed from it, so
// its 0.4 % precision never pushes a step past ±127.
func quantize(vec []float32, out []byte) uint16 {
	var peak float32
	for _, x := range vec {
		peak = max(peak, float32(math.Abs(float64(x))))
	}
	if peak == 0 {
		return 0
	}
	bits := math.Float32bits(peak / 127)
	if bits&0xffff != 0 {
		bits += 0x10000
	}
	scale := math.Float32frombits(bits &^ 0xffff)
	for d, x := range vec {
		q := math.Round(float64(x / scale))
		out[d] = byte(int8(max(-127, min(127, q))))
	}
	return uint16(bits >> 16)
}

// hashSlots builds the open-addressing table (linear probing) the reader
// searches. A slot holds 0 when empty, else the word's index+1 in its low
// bits and the top bits of the word's hash above them, so most probes that
// miss are rejected without touching the word bytes.
func hashSlots(words []string) []uint32 {
	n := 1
	for n < len(words)+len(words)/4+1 {
		n <<= 1
	}
	shift := bits.TrailingZeros(uint(n))
	mask := uint32(n - 1)
	slots := make([]uint32, n)
	for i, w := range words {
		h := fnv1a(w)
		for p := h & mask; ; p = (p + 1) & mask {
			if slots[p] == 0 {
				slots[p] = uint32(i+1) | (h>>shift)<<shift
				break
			}
		}
	}
	return slots
}

// fnv1a is 32-bit FNV-1a, the same function embed/table.go uses.
func fnv1a(s string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(s); i++ {
		h ^= uint32(s[i])
		h *= 16777619
	}
	return h
}

type countingWriter struct {
	w   io.Writer
	n   int64
	err error
}

func (c *countingWriter) write(p []byte) {
	if c.err != nil {
		return
	}
	n, err := c.w.Write(p)
	c.n += int64(n)
	c.err = err
}
