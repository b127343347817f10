package store

import (
	"bytes"
	"database/sql/driver"
	"fmt"
	"io"
	"sync"

	"github.com/klauspost/compress/flate"
	"modernc.org/sqlite"
)

// A turn's question and answer are stored deflated (schema 7): they are
// most of the store, and aider's answers (code, diffs, prose) shrink to a
// third. pack and unpack are SQL functions, so the turns view (unpacked)
// reads like the table it replaced and only turn_rows' writers pack.
//
// A packed text is a BLOB; a text left as it was (short, or not smaller
// deflated) stays TEXT, so unpack tells them apart by type alone and a
// store's older rows need no marker.

// packMin is the shortest text worth deflating: below it the deflate
// stream's own bytes outweigh what it saves.
const PackMin = 128

// packLevel trades ratio for speed. Measured on 49.5 MB of questions and
// answers from bench/perf's 100k-turn corpus store (18,618 texts of 128
// bytes or more), klauspost/compress's level 1 packs them to 0.331 of
// the bytes in 0.46 s and unpacks them in 0.45 s; the standard library's
// level 1 to 0.330 in 1.34 s and 0.71 s, its level 2 to 0.315 in 1.67 s
// and 0.59 s (a one-off program timing both packages on those texts, not
// kept). The formats are the same deflate.
const packLevel = flate.BestSpeed

var (
	packers = sync.Pool{New: func() any {
		w, err := flate.NewWriter(nil, packLevel)
		if err != nil {
			panic(err) // only for a level outside flate's range
		}
		return w
	}}
	unpackers = sync.Pool{New: func() any { return flate.NewReader(bytes.NewReader(nil)) }}
)

func init() {
	for name, fn := range map[string]func(*sqlite.FunctionContext, []driver.Value) (driver.Value, error){
		"pack":   sqlPack,
		"unpack": sqlUnpack,
	} {
		if err := sqlite.RegisterDeterministicScalarFunction(name, 1, fn); err != nil {
			panic(err)
		}
	}
}

// pack returns text deflated, or nil where deflating does not pay.
func Pack(text string) []byte {
	if len(text) < PackMin {
		return nil
	}
	var buf bytes.Buffer
	buf.Grow(len(text) / 2)
	w := packers.Get().(*flate.Writer)
	defer packers.Put(w)
	w.Reset(&buf)
	if _, err := io.WriteString(w, text); err != nil {
		return nil
	}
	if err := w.Close(); err != nil {
		return nil
	}
	if buf.Len() >= len(text)-len(text)/8 {
		return nil
	}
	return buf.Bytes()
}

// packedTurn is a turn's question and answer as turn_rows stores them,
// and their length in characters. Index runs pack off the writer's
// goroutine: deflating in SQL (pack) took 1.25 s of its 16 s at 100k turns.
type PackedTurn struct {
	User, assistant any
	Chars           int
}

func PackTurn(user, assistant string) PackedTurn {
	return PackedTurn{User: packed(user), assistant: packed(assistant), Chars: Characters(user) + Characters(assistant)}
}

// packed is a text as turn_rows stores it: deflated where that pays, the
// text itself elsewhere (what the SQL function pack returns).
func packed(text string) any {
	if p := Pack(text); p != nil {
		return p
	}
	return text
}

// characters counts a text's characters as SQLite's length() does, which
// the SQL this replaced used: a byte of 0xc0 or more and the continuation
// bytes after it are one. A NUL counts as one too, where length() stops:
// the SQL function pack was handed the text cut at its first NUL and
// stored only that, while the text is now stored whole.
func Characters(s string) int {
	n := 0
	for i := 0; i < len(s); n++ {
		c := s[i]
		i++
		if c >= 0xc0 {
			for i < len(s) && s[i]&0xc0 == 0x80 {
				i++
			}
		}
	}
	return n
}

// unpack inflates a packed text.
func Unpack(b []byte) (string, error) {
	r := unpackers.Get().(io.ReadCloser)
	defer unpackers.Put(r)
	if err := r.(flate.Resetter).Reset(bytes.NewReader(b), nil); err != nil {
		return "", err
	}
	var out bytes.Buffer
	out.Grow(3 * len(b))
	if _, err := out.ReadFrom(r); err != nil {
		return "", fmt.Errorf("store: a packed turn text is damaged (%v): run 'deja index --full'", err)
	}
	return out.String(), nil
}

func sqlPack(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
	switch v := args[0].(type) {
	case string:
		if p := Pack(v); p != nil {
			return p, nil
		}
		return v, nil
	case []byte:
		// Already packed: pack is idempotent, so an upgrade that stops
		// half way can run again.
		return v, nil
	default:
		return v, nil
	}
}

func sqlUnpack(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
	b, ok := args[0].([]byte)
	if !ok {
		return args[0], nil
	}
	return Unpack(b)
}
