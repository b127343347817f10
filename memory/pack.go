package memory

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
const packMin = 128

// packLevel trades ratio for speed. Measured on 49.5 MB of questions and
// answers from bench/perf's 100k-turn corpus store (18,618 texts of 128
// bytes or more), klauspost/compress's level 1 packs them to 0.331 of
// the bytes in 0.46 s and unpacks them in 0.45 s; the standard library's
// level 1 to 0.330 in 1.34 s and 0.71 s, its level 2 to 0.315 in 1.67 s
// and 0.59 s (a one-off program timing both packages on those texts, not
// kept). The formats are the same deflate.
const packLevel = flate.BestSpeed

// justPacked remembers the texts this process packed last, by their packed
// bytes, so the keyword rows written from the turns view right after the
// turns (keywordBatch) do not inflate what was just deflated. Deflate's
// output decodes to one text only, so a hit is exact.
var justPacked = struct {
	sync.Mutex
	text  map[string]string
	order []string
	bytes int
}{text: map[string]string{}}

// justPackedBytes bounds what justPacked holds: the texts of a history
// of a few megabytes, flushed to the keyword index at its end. Measured
// with /usr/bin/time on deja index, standard-library flate then,
// indexing the corpus replicated to 10k turns, user and system CPU: 7.0
// to 7.1 s without it, 5.7 to 6.4 s with 2 MB (peak RSS 68 MB, 78 MB),
// 5.8 to 6.7 s with 8 MB (97 MB).
const justPackedBytes = 2 << 20

func rememberPacked(packed []byte, text string) {
	justPacked.Lock()
	defer justPacked.Unlock()
	key := string(packed)
	if _, ok := justPacked.text[key]; ok {
		return
	}
	justPacked.text[key] = text
	justPacked.order = append(justPacked.order, key)
	justPacked.bytes += len(text)
	for justPacked.bytes > justPackedBytes && len(justPacked.order) > 0 {
		old := justPacked.order[0]
		justPacked.order = justPacked.order[1:]
		justPacked.bytes -= len(justPacked.text[old])
		delete(justPacked.text, old)
	}
}

func recentlyPacked(packed []byte) (string, bool) {
	justPacked.Lock()
	defer justPacked.Unlock()
	text, ok := justPacked.text[string(packed)]
	return text, ok
}

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
func pack(text string) []byte {
	if len(text) < packMin {
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
	rememberPacked(buf.Bytes(), text)
	return buf.Bytes()
}

// unpack inflates a packed text.
func unpack(b []byte) (string, error) {
	if text, ok := recentlyPacked(b); ok {
		return text, nil
	}
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
		if p := pack(v); p != nil {
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
	return unpack(b)
}
