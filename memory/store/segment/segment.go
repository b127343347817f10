package segment

import (
	"bufio"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"unsafe"
)

// Vector segments (schema 6). Each embedder's vectors live in one packed,
// append-only file under vectors/ beside deja.db, so a cold recall reads
// them with one sequential read instead of stepping a row per vector
// through SQLite. The ledger keeps one row per vector (which turn, which
// part) and no float; the segments table names each embedder's file and
// its committed length.
//
// A write transaction inserts vectors into the ledger with their floats
// (vec not NULL: pending). Before it commits, flushVectors appends one
// block holding the pending vectors, and a marker for every flushed vector
// deleted since (the trigger vectors_dead records them), to the file;
// sets vec to NULL; and records the new length, in the same transaction.
// A crash before the commit leaves bytes past the committed length, which
// readers ignore and the next flush cuts off; so the file and the ledger
// commit together.
//
// A block is: "DJV1", dimension, record count, marker count, session
// count (uint32 each); the markers (turn ID int64, part int32); the
// sessions its records belong to, with what a recall scopes by (ID,
// project, harness, origin, subagent, start), so a cold recall reads no
// sessions table; the records' keys (turn ID int64, part int32, the
// session's place in the block uint32); their floats, dimension float32s
// each at unit length, all together so a reader moves them into memory in
// one read; and a CRC-32C of all of it. Integers are little-endian; strings are a uint16
// length and the bytes. Readers apply blocks in order: a
// marker kills the vector of its turn and part, and a later record of the
// same turn and part replaces an earlier one (a turn ID the ledger reused).
//
// A file whose blocks do not check out, or that is shorter than its
// committed length or missing, is damaged: recall says so and ranks by
// keywords, and the next 'deja index' keeps the blocks that check out,
// drops the ledger rows of the vectors it lost and embeds those turns
// again from the ledger's text.
//
// Forgetting rewrites the file without the dead vectors (compaction) into
// a new file, so no forgotten turn's vector or session ID stays in it; the
// old file is overwritten with zeros and removed once the ledger names the
// new one. Flushes compact too when dead vectors pass a third of the file.
// A rewrite copies the live floats from the old file as it writes the new
// one, holding none of them whole (compact.go).

// VectorDir is the directory, inside the data directory, of the segments.
const VectorDir = "vectors"

const SegmentMagic = "DJV1"

// errSegmentDamaged marks a vector file that does not match the ledger.
var ErrSegmentDamaged = errors.New("vector file damaged")

// vectorKey is one vector's turn and part.
type VectorKey struct {
	TurnID int64
	Part   int32
}

// vectorSet is one embedder's live vectors, read from its segment: the
// floats of vector i are vecs[i*dim : (i+1)*dim], at unit length.
type VectorSet struct {
	Dim  int
	Keys []VectorKey
	// of is the index in sessions of each vector's session.
	Of       []int32
	Sessions sessionList
	Vecs     []float32
}

// sessionList holds a set's sessions in chunks of sessionChunk, so that
// reading a segment adds them without copying those it holds: a slice
// grown by append made 20 MB of garbage reading 100k turns' sessions.
type sessionList struct {
	chunks [][]SessionMeta
	n      int
}

const sessionChunk = 1024

func (l *sessionList) Len() int { return l.n }

func (l *sessionList) At(i int) *SessionMeta { return &l.chunks[i/sessionChunk][i%sessionChunk] }

// add appends m and returns its index.
func (l *sessionList) add(m SessionMeta) int32 {
	if l.n%sessionChunk == 0 && l.n/sessionChunk == len(l.chunks) {
		l.chunks = append(l.chunks, make([]SessionMeta, sessionChunk))
	}
	*l.At(l.n) = m
	l.n++
	return int32(l.n - 1)
}

// truncate drops the sessions from the nth on.
func (l *sessionList) truncate(n int) {
	for i := n; i < l.n; i++ {
		*l.At(i) = SessionMeta{}
	}
	l.n = n
}

// sessionMeta is what a recall needs of a session to scope its chunks.
type SessionMeta struct {
	Id, Project     string
	Harness, Origin string
	Subagent        bool
	HasStart        bool
	StartedNS       int64
}

// session is vector i's session.
func (v *VectorSet) Session(i int) *SessionMeta { return v.Sessions.At(int(v.Of[i])) }

func (v *VectorSet) Len() int { return len(v.Keys) }

func (v *VectorSet) Vector(i int) []float32 {
	return v.Vecs[i*v.Dim : (i+1)*v.Dim : (i+1)*v.Dim]
}

// segmentName is the file of the embedder's segment at a generation; the
// identity is hashed, since it may hold characters no file name can.
func SegmentName(identity string, gen int64) string {
	h := sha256.Sum256([]byte(identity))
	return hex.EncodeToString(h[:8]) + "-" + strconv.FormatInt(gen, 10) + ".seg"
}

// segmentRow is an embedder's row of the segments table.
type SegmentRow struct {
	File    string
	Gen     int64
	Length  int64
	Records int64
	Dead    int64
}

type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func ReadSegmentRow(ctx context.Context, q querier, identity string) (SegmentRow, bool, error) {
	var r SegmentRow
	err := q.QueryRowContext(ctx, `SELECT file, gen, length, records, dead FROM segments WHERE embedder = ?`, identity).
		Scan(&r.File, &r.Gen, &r.Length, &r.Records, &r.Dead)
	if errors.Is(err, sql.ErrNoRows) {
		return r, false, nil
	}
	if err != nil {
		return r, false, fmt.Errorf("store: reading the vector segments: %w", err)
	}
	return r, true, nil
}

// deadVectors lists the flushed vectors of the embedder deleted in this
// transaction.
func DeadVectors(ctx context.Context, tx *sql.Tx, identity string) ([]VectorKey, error) {
	rows, err := tx.QueryContext(ctx, `SELECT turn_id, part FROM vector_dead WHERE embedder = ?`, identity)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []VectorKey
	for rows.Next() {
		var k VectorKey
		if err := rows.Scan(&k.TurnID, &k.Part); err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	return out, rows.Err()
}

// pendingFloats holds the floats of a write transaction's pending vectors
// until its flush, by embedder, turn and part. The ledger rows say which
// vectors are pending: floats of a row deleted since are never asked for,
// and a row written again replaces its floats.
type PendingFloats struct {
	M map[FloatKey][]float32
	// obsolete are the files that flushes before the transaction's last
	// replaced, to remove once it commits.
	Obsolete []string
}

// flushed lets go of the floats a flush before the commit wrote, and
// keeps the files it replaced for removal after the commit.
func (p *PendingFloats) Flushed(obsolete []string) {
	if p == nil {
		return
	}
	clear(p.M)
	p.Obsolete = append(p.Obsolete, obsolete...)
}

type FloatKey struct {
	Embedder string
	Key      VectorKey
}

func (p *PendingFloats) Put(embedder string, k VectorKey, v []float32) {
	p.M[FloatKey{Embedder: embedder, Key: k}] = v
}

// blockEncoder gathers one block's records and the sessions they name.
type BlockEncoder struct {
	dim, N   int
	keys     []byte
	floats   []byte
	sessions []byte
	at       map[string]uint32
}

func (e *BlockEncoder) Add(k VectorKey, m *SessionMeta, v []float32) error {
	if e.dim == 0 {
		e.dim = len(v)
	} else if len(v) != e.dim {
		return fmt.Errorf("vectors of %d and %d dimensions: run 'deja index --full'", e.dim, len(v))
	}
	e.addKey(k, m)
	for _, x := range v {
		e.floats = binary.LittleEndian.AppendUint32(e.floats, math.Float32bits(x))
	}
	return nil
}

// addKey adds a record's key and session, and not its floats: a block
// whose floats are written apart (writeCompacted).
func (e *BlockEncoder) addKey(k VectorKey, m *SessionMeta) {
	if e.at == nil {
		e.at = map[string]uint32{}
	}
	i, ok := e.at[m.Id]
	if !ok {
		i = uint32(len(e.at))
		e.at[m.Id] = i
		for _, str := range []string{m.Id, m.Project, m.Harness, m.Origin} {
			e.sessions = appendString(e.sessions, str)
		}
		e.sessions = append(e.sessions, boolByte(m.Subagent), boolByte(m.HasStart))
		e.sessions = binary.LittleEndian.AppendUint64(e.sessions, uint64(m.StartedNS))
	}
	e.keys = binary.LittleEndian.AppendUint64(e.keys, uint64(k.TurnID))
	e.keys = binary.LittleEndian.AppendUint32(e.keys, uint32(k.Part))
	e.keys = binary.LittleEndian.AppendUint32(e.keys, i)
	e.N++
}

// encode is the block: its head, its floats and its checksum.
func (e *BlockEncoder) Encode(dead []VectorKey) []byte {
	b := e.head(dead, len(e.floats)+4)
	b = append(b, e.floats...)
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, Castagnoli))
}

// head is the block up to its floats, with room for more bytes after it.
func (e *BlockEncoder) head(dead []VectorKey, room int) []byte {
	b := make([]byte, 0, 20+12*len(dead)+len(e.sessions)+len(e.keys)+room)
	b = append(b, SegmentMagic...)
	b = binary.LittleEndian.AppendUint32(b, uint32(e.dim))
	b = binary.LittleEndian.AppendUint32(b, uint32(e.N))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(dead)))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(e.at)))
	for _, k := range dead {
		b = binary.LittleEndian.AppendUint64(b, uint64(k.TurnID))
		b = binary.LittleEndian.AppendUint32(b, uint32(k.Part))
	}
	b = append(b, e.sessions...)
	return append(b, e.keys...)
}

func appendString(b []byte, s string) []byte {
	if len(s) > math.MaxUint16 {
		s = s[:math.MaxUint16]
	}
	b = binary.LittleEndian.AppendUint16(b, uint16(len(s)))
	return append(b, s...)
}

func boolByte(b bool) byte {
	if b {
		return 1
	}
	return 0
}

var Castagnoli = crc32.MakeTable(crc32.Castagnoli)

// appendAt writes block at offset off of the file, cutting off whatever an
// uncommitted flush left past it.
func AppendAt(path string, off int64, block []byte) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	if err := f.Truncate(off); err != nil {
		f.Close()
		return err
	}
	if _, err := f.WriteAt(block, off); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// removeSegments overwrites replaced segment files with zeros and removes
// them: they may hold forgotten vectors.
func RemoveSegments(paths []string) {
	for _, p := range paths {
		if f, err := os.OpenFile(p, os.O_WRONLY, 0); err == nil {
			if fi, err := f.Stat(); err == nil {
				zero := make([]byte, 64<<10)
				for off := int64(0); off < fi.Size(); off += int64(len(zero)) {
					if _, err := f.WriteAt(zero[:min(int64(len(zero)), fi.Size()-off)], off); err != nil {
						break
					}
				}
			}
			f.Close()
		}
		_ = os.Remove(p)
	}
}

// decodeSegment reads the first length bytes of a segment, applying its
// blocks in order, and returns the live vectors and the length of the
// prefix whose blocks check out. It reads as it goes, so a cold load holds
// the floats once, not the file as well; records is how many the file
// holds, to size the floats up front. While no block has a marker and the
// keys only grow (a new or rewritten file), no vector can replace another,
// and the map that finds them is not built.
func DecodeSegment(r io.Reader, length int64, records int) (*VectorSet, int64) {
	d := newSegmentDecoder(r, length, records, true)
	good := d.decode()
	return d.set, good
}

// layoutSegment reads a segment as decodeSegment does, checksums and all,
// but keeps no float: it returns the live vectors' keys and sessions, and
// where each block's floats lie, for a one-shot recall to read them a
// piece at a time (scan.go).
func LayoutSegment(r io.Reader, length int64, records int) (*SegmentLayout, int64) {
	d := newSegmentDecoder(r, length, records, false)
	good := d.decode()
	return &SegmentLayout{Set: d.set, Blocks: d.spans, Alive: d.alive, length: good}, good
}

func newSegmentDecoder(r io.Reader, length int64, records int, floats bool) *segmentDecoder {
	return &segmentDecoder{r: bufio.NewReaderSize(io.LimitReader(r, length), 1<<20), left: length, length: length,
		set: &VectorSet{}, last: VectorKey{TurnID: -1}, records: records, floats: floats, strs: map[string]string{}}
}

// decode reads the blocks that check out and returns the length of the
// prefix they make; then it drops the vectors a later block killed or
// replaced (their floats too, when it keeps them).
func (d *segmentDecoder) decode() int64 {
	var good int64
	for d.left > 0 && d.block() {
		good = d.length - d.left
	}
	set := d.set
	if d.alive != nil {
		w, dim := 0, set.Dim
		for i, ok := range d.alive {
			if !ok {
				continue
			}
			set.Keys[w], set.Of[w] = set.Keys[i], set.Of[i]
			if d.floats {
				copy(set.Vecs[w*dim:(w+1)*dim], set.Vecs[i*dim:(i+1)*dim])
			}
			w++
		}
		set.Keys, set.Of = set.Keys[:w], set.Of[:w]
		if d.floats {
			set.Vecs = set.Vecs[:w*dim]
		}
	}
	return good
}

type segmentDecoder struct {
	r       *bufio.Reader
	left    int64 // bytes not read yet
	length  int64 // bytes to read in all
	crc     uint32
	set     *VectorSet
	ids     map[string]int32 // built from the second block on
	blocks  int              // blocks read
	records int
	// last is the greatest key so far while the keys only grow; at and
	// alive replace it from the first marker or key out of order.
	last  VectorKey
	at    map[VectorKey]int
	alive []bool
	// buf holds a block's header and strings; one for every block, since
	// a store indexed history by history has a block a commit (a new
	// buffer each came to 92 MB of garbage loading bench/perf's 100k turns).
	buf []byte
	// local is a block's sessions' places in the set.
	local []int32
	// floats says whether the floats are kept in the set; without them,
	// spans say where each good block's floats lie.
	floats bool
	spans  []blockSpan
	// strs holds one copy of each project, harness and origin name: many
	// sessions share each.
	strs map[string]string
}

// read fills p from the segment, and its checksum.
func (d *segmentDecoder) read(p []byte) bool {
	if int64(len(p)) > d.left {
		return false
	}
	if _, err := io.ReadFull(d.r, p); err != nil {
		return false
	}
	d.left -= int64(len(p))
	d.crc = crc32.Update(d.crc, Castagnoli, p)
	return true
}

// skip reads n bytes of the segment for its checksum only, from the
// reader's own buffer.
func (d *segmentDecoder) skip(n int) bool {
	if int64(n) > d.left {
		return false
	}
	for n > 0 {
		p, err := d.r.Peek(min(n, d.r.Size()))
		if len(p) == 0 {
			return err == nil
		}
		d.crc = crc32.Update(d.crc, Castagnoli, p)
		d.r.Discard(len(p))
		d.left -= int64(len(p))
		n -= len(p)
	}
	return true
}

func (d *segmentDecoder) u32(p []byte) (int, bool) {
	if !d.read(p[:4]) {
		return 0, false
	}
	return int(binary.LittleEndian.Uint32(p)), true
}

func (d *segmentDecoder) str(p []byte) (string, bool) {
	if !d.read(p[:2]) {
		return "", false
	}
	n := int(binary.LittleEndian.Uint16(p))
	if !d.read(p[:n]) {
		return "", false
	}
	return string(p[:n]), true
}

// shared reads a string many sessions repeat (a project, a harness, an
// origin) and returns the decoder's one copy of it.
func (d *segmentDecoder) shared(p []byte) (string, bool) {
	if !d.read(p[:2]) {
		return "", false
	}
	n := int(binary.LittleEndian.Uint16(p))
	if !d.read(p[:n]) {
		return "", false
	}
	if s, ok := d.strs[string(p[:n])]; ok {
		return s, true
	}
	s := string(p[:n])
	d.strs[s] = s
	return s, true
}

// littleEndian: the floats of a record read straight into memory.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// block reads one block; one that does not check out leaves the set as it
// was and ends the read.
func (d *segmentDecoder) block() bool {
	set := d.set
	keys0, sessions0 := len(set.Keys), set.Sessions.Len()
	d.crc = 0
	ok := d.readBlock()
	if ok {
		d.blocks++
	} else {
		for i := sessions0; i < set.Sessions.Len(); i++ {
			delete(d.ids, set.Sessions.At(i).Id)
		}
		set.Sessions.truncate(sessions0)
		set.Keys, set.Of = set.Keys[:keys0], set.Of[:keys0]
		if d.floats {
			set.Vecs = set.Vecs[:keys0*set.Dim]
		}
		if keys0 == 0 {
			set.Dim = 0
		}
	}
	return ok
}

func (d *segmentDecoder) readBlock() bool {
	set := d.set
	if d.buf == nil {
		d.buf = make([]byte, 1<<16+2)
	}
	buf := d.buf
	start := d.length - d.left
	if !d.read(buf[:4]) || string(buf[:4]) != SegmentMagic {
		return false
	}
	var h [4]int
	for i := range h {
		var ok bool
		if h[i], ok = d.u32(buf); !ok {
			return false
		}
	}
	dim, n, nd, ns := h[0], h[1], h[2], h[3]
	if dim > 1<<16 || int64(nd) > d.left/12 || int64(ns) > d.left/16 || int64(n)*int64(16+4*dim) > d.left || n > 0 && (dim == 0 || set.Dim != 0 && dim != set.Dim) {
		return false
	}
	marks := make([]byte, 12*nd)
	if !d.read(marks) {
		return false
	}
	d.local = slices.Grow(d.local[:0], ns)[:ns]
	local := d.local
	for j := range local {
		var m SessionMeta
		var ok [4]bool
		m.Id, ok[0] = d.str(buf)
		m.Project, ok[1] = d.shared(buf)
		m.Harness, ok[2] = d.shared(buf)
		m.Origin, ok[3] = d.shared(buf)
		if ok != [4]bool{true, true, true, true} || !d.read(buf[:10]) {
			return false
		}
		m.Subagent, m.HasStart = buf[0] == 1, buf[1] == 1
		m.StartedNS = int64(binary.LittleEndian.Uint64(buf[2:]))
		// A block names each session once; only a later block can name
		// one again (a session that grew), so the first needs no map.
		g, seen := int32(0), false
		if d.blocks > 0 {
			if d.ids == nil {
				d.ids = make(map[string]int32, max(set.Sessions.Len()*2, 1024))
				for i := range set.Sessions.Len() {
					d.ids[set.Sessions.At(i).Id] = int32(i)
				}
			}
			g, seen = d.ids[m.Id]
		}
		if !seen {
			g = set.Sessions.add(m)
			if d.ids != nil {
				d.ids[m.Id] = g
			}
		}
		local[j] = g
	}
	if n > 0 && set.Dim == 0 {
		set.Dim = dim
		if d.floats {
			set.Vecs = make([]float32, 0, max(d.records, n)*dim)
		}
		set.Keys = make([]VectorKey, 0, max(d.records, n))
		set.Of = make([]int32, 0, max(d.records, n))
	}
	first := len(set.Keys)
	for left := n; left > 0; {
		keys := buf[:16*min(left, len(buf)/16)]
		if !d.read(keys) {
			return false
		}
		for p := 0; p < len(keys); p += 16 {
			sess := int(binary.LittleEndian.Uint32(keys[p+12:]))
			if sess >= ns {
				return false
			}
			set.Keys = append(set.Keys, recordKey(keys[p:]))
			set.Of = append(set.Of, local[sess])
		}
		left -= len(keys) / 16
	}
	floats := d.length - d.left
	if !d.floats && !d.skip(4*n*dim) {
		return false
	}
	at := len(set.Vecs)
	if d.floats {
		set.Vecs = slices.Grow(set.Vecs, n*dim)[:at+n*dim]
	}
	if v := set.Vecs[at:]; len(v) > 0 {
		if littleEndian {
			if !d.read(unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), 4*len(v))) {
				return false
			}
		} else {
			raw := make([]byte, 4*len(v))
			if !d.read(raw) {
				return false
			}
			for j := range v {
				v[j] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*j:]))
			}
		}
	}
	sum := d.crc
	if !d.read(buf[:4]) || binary.LittleEndian.Uint32(buf) != sum {
		return false
	}
	if !d.floats {
		d.spans = append(d.spans, blockSpan{Start: start, Floats: floats, End: d.length - d.left, first: first, Records: n})
	}
	// The block checks out: its markers kill earlier vectors, and its
	// records replace earlier ones of the same turn and part.
	// While the keys only grow, a marker above the greatest key so far
	// (a chunk with no signal of a new turn) kills nothing.
	kills := d.at != nil
	for p := 0; p < len(marks) && !kills; p += 12 {
		kills = !keyLess(d.last, recordKey(marks[p:]))
	}
	if kills {
		d.index(first)
		for p := 0; p < len(marks); p += 12 {
			k := recordKey(marks[p:])
			if i, ok := d.at[k]; ok {
				d.alive[i] = false
				delete(d.at, k)
			}
		}
	}
	for i := first; i < len(set.Keys); i++ {
		k := set.Keys[i]
		if d.at == nil {
			if keyLess(d.last, k) {
				d.last = k
				continue
			}
			d.index(i)
		}
		if j, ok := d.at[k]; ok {
			d.alive[j] = false
		}
		d.at[k] = i
		d.alive = append(d.alive, true)
	}
	return true
}

// index builds the map from key to vector over the first n vectors, from
// the first block that needs it on.
func (d *segmentDecoder) index(n int) {
	if d.at != nil {
		for len(d.alive) < n {
			i := len(d.alive)
			if j, ok := d.at[d.set.Keys[i]]; ok {
				d.alive[j] = false
			}
			d.at[d.set.Keys[i]] = i
			d.alive = append(d.alive, true)
		}
		return
	}
	d.at = make(map[VectorKey]int, max(d.records, n))
	d.alive = make([]bool, n, max(d.records, n))
	for i := range n {
		d.at[d.set.Keys[i]] = i
		d.alive[i] = true
	}
}

func recordKey(b []byte) VectorKey {
	return VectorKey{int64(binary.LittleEndian.Uint64(b)), int32(binary.LittleEndian.Uint32(b[8:]))}
}

func keyLess(a, b VectorKey) bool {
	return a.TurnID < b.TurnID || a.TurnID == b.TurnID && a.Part < b.Part
}

// blockHead is the length of a block's fixed header: the magic and four
// counts.
const BlockHead = 20
