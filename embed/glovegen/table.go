package main

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"

	"github.com/klauspost/compress/zstd"
)

// table is the binary word table that embed/table.go reads; the layout is
// documented there, and the two must change together.
type table struct {
	vocab *vocabulary
}

func buildTable(v *vocabulary) table { return table{vocab: v} }

const magic = "DEJAGLV3"

// blockWords is how many words' vectors share one compressed block: small
// enough that a query decompresses a few kilobytes per word it knows, large
// enough that a block's own tables cost under 1 %.
const blockWords = 256

// WriteTo writes the table embed/table.go reads: the magic, a header, the
// block offsets, one zstd frame of word lengths, scales and word bytes, then
// the 4-bit vectors in zstd frames of blockWords words each. All integers
// are little-endian.
func (t table) WriteTo(w io.Writer) (int64, error) {
	words := t.vocab.words
	count := len(words)

	var blob []byte
	lengths := make([]byte, count)
	for i, word := range words {
		if len(word) == 0 || len(word) > 255 {
			return 0, fmt.Errorf("word %d is %d bytes; the table holds words of 1 to 255", i, len(word))
		}
		lengths[i] = byte(len(word))
		blob = append(blob, word...)
	}

	le := binary.LittleEndian
	scales := make([]uint16, count)
	vectors := make([]byte, count*dims/2)
	for i, vec := range t.vocab.vectors {
		scales[i] = quantize(vec[:], vectors[i*dims/2:(i+1)*dims/2])
	}
	wordData := make([]byte, 0, 3*count)
	wordData = append(wordData, lengths...)
	for _, s := range scales {
		wordData = le.AppendUint16(wordData, s)
	}
	wordData = append(wordData, blob...)

	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedBestCompression), zstd.WithEncoderConcurrency(1))
	if err != nil {
		return 0, err
	}
	defer enc.Close()
	rest := enc.EncodeAll(wordData, nil)
	var blocks []byte
	offsets := []uint32{0}
	for at := 0; at < count; at += blockWords {
		end := min(count, at+blockWords)
		blocks = enc.EncodeAll(vectors[at*dims/2:end*dims/2], blocks)
		offsets = append(offsets, uint32(len(blocks)))
	}

	var head []byte
	head = append(head, magic...)
	for _, n := range []uint32{dims, uint32(count), blockWords, uint32(len(blob)), uint32(len(rest))} {
		head = le.AppendUint32(head, n)
	}
	for _, o := range offsets {
		head = le.AppendUint32(head, o)
	}
	cw := &countingWriter{w: w}
	cw.write(head)
	cw.write(rest)
	cw.write(blocks)
	return cw.n, cw.err
}

// quantize stores vec as 4-bit steps of one per-word scale, two components
// a byte (the even one in the low nibble). Step n in 0..15 stands for
// (n-7.5)*scale: sixteen levels, none wasted on an exact zero, with the
// scale chosen so the largest component falls in the outermost step. It
// returns the scale as bfloat16 (the top half of a float32), rounded up
// before the steps are computed from it so its 0.4 % precision never pushes
// a component past the outermost step. Four bits instead of eight halve the
// table; docs/benchmarks.md gives what it changed on bench/eval.
func quantize(vec []float32, out []byte) uint16 {
	var peak float32
	for _, x := range vec {
		peak = max(peak, float32(math.Abs(float64(x))))
	}
	if peak == 0 {
		peak = 1
	}
	bits := math.Float32bits(peak / 8)
	if bits&0xffff != 0 {
		bits += 0x10000
	}
	scale := math.Float32frombits(bits &^ 0xffff)
	for d, x := range vec {
		n := byte(int(max(-8, min(7, math.Floor(float64(x/scale))))) + 8)
		out[d/2] |= n << (4 * (d % 2))
	}
	return uint16(bits >> 16)
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
