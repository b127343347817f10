package harness

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"hash/maphash"
	"io"
	"slices"
)

// Some harnesses write a session whose earlier lines a later line can
// change: a Gemini CLI record re-appended with the same id replaces it, a
// pi or Copilot CLI tool call is known to have run, failed or been
// refused only from a result written after it. Their parse cannot hand a
// turn over until the end, and one 1 GB session held its text whole
// (1.26 GB of memory). Their Prescan walks the history once, keeping only
// those later facts, keyed by the ids they name (Key), and how many lines
// it read (PrescanLines); the parse then knows, as it reads each line,
// what no later line changes, and stops where Prescan stopped, so that a
// line written in between cannot change a turn it handed over.

// Key names an id a history's lines refer to: two 64-bit hashes of it,
// seeded afresh by each process (a Prescan and its parse run in one), so
// that a set of a million ids holds 16 bytes an id, not the id. The zero
// Key is no id.
type Key [2]uint64

var keySeeds = [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}

// KeyOf is id's Key; the zero Key for "".
func KeyOf(id string) Key {
	if id == "" {
		return Key{}
	}
	return Key{maphash.String(keySeeds[0], id), maphash.String(keySeeds[1], id) | 1}
}

// PrescanLines walks the whole lines r holds (r bounds their length: the
// indexer hands a Prescan its LineBound), numbered from 1, calling line
// with each, and returns the number of the last line that line consumed:
// where the parse is to stop.
func PrescanLines(r io.Reader, line func(*Lines) bool) (int, error) {
	last := 0
	_, err := WalkLines(r, 0, 0, func(l *Lines) {
		if line(l) {
			last = l.Number
		}
	})
	return last, err
}

// EncodePrescan is what a Prescan returns: tag, top as one JSON line,
// then tail's bytes.
func EncodePrescan(tag string, top any, tail []byte) (string, error) {
	head, err := json.Marshal(top)
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	b.Grow(len(tag) + len(head) + len(tail) + 2)
	b.WriteString(tag)
	b.WriteByte('\n')
	b.Write(head)
	b.WriteByte('\n')
	b.Write(tail)
	return b.String(), nil
}

// DecodePrescan reads what EncodePrescan wrote with tag into top and
// returns the tail; false for anything else (another reader's prescan,
// none), which the parse reads as no prescan.
func DecodePrescan(s, tag string, top any) ([]byte, bool) {
	rest, ok := bytes.CutPrefix([]byte(s), []byte(tag+"\n"))
	if !ok {
		return nil, false
	}
	head, tail, ok := bytes.Cut(rest, []byte("\n"))
	if !ok || json.Unmarshal(head, top) != nil {
		return nil, false
	}
	return tail, true
}

// AppendKeys appends each key of m and its byte to tail, 17 bytes a key:
// a Prescan's facts about the ids it met.
func AppendKeys(tail []byte, m map[Key]byte) []byte {
	tail = slices.Grow(tail, len(m)*17)
	for k, b := range m {
		tail = binary.LittleEndian.AppendUint64(tail, k[0])
		tail = binary.LittleEndian.AppendUint64(tail, k[1])
		tail = append(tail, b)
	}
	return tail
}

// ReadKeys adds to m what AppendKeys wrote in tail; false, m unchanged,
// when tail is not of its shape.
func ReadKeys(tail []byte, m map[Key]byte) bool {
	if len(tail)%17 != 0 {
		return false
	}
	for ; len(tail) > 0; tail = tail[17:] {
		m[Key{binary.LittleEndian.Uint64(tail), binary.LittleEndian.Uint64(tail[8:])}] = tail[16]
	}
	return true
}
