package segment

import (
	"encoding/binary"
	"math"
)

// encodeVector stores a vector as little-endian float32s; a zero vector (no
// semantic signal) is stored empty, so it is never loaded or matched.
func EncodeVector(v []float32) []byte {
	zero := true
	for _, x := range v {
		if x != 0 {
			zero = false
			break
		}
	}
	if zero {
		return []byte{}
	}
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// decodeVector reads a vector written by encodeVector into a new slice.
func DecodeVector(b []byte) []float32 {
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v
}

// normalize returns v scaled to unit length, or nil for a zero vector.
func Normalize(v []float32) []float32 {
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	if sum == 0 || math.IsNaN(sum) {
		return nil
	}
	n := float32(math.Sqrt(sum))
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = x / n
	}
	return out
}
