package memory

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
	"path/filepath"
	"slices"
	"strconv"
	"strings"
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

const segmentMagic = "DJV1"

// errSegmentDamaged marks a vector file that does not match the ledger.
var errSegmentDamaged = errors.New("vector file damaged")

// vectorKey is one vector's turn and part.
type vectorKey struct {
	turnID int64
	part   int32
}

// vectorSet is one embedder's live vectors, read from its segment: the
// floats of vector i are vecs[i*dim : (i+1)*dim], at unit length.
type vectorSet struct {
	dim  int
	keys []vectorKey
	// of is the index in sessions of each vector's session.
	of       []int32
	sessions sessionList
	vecs     []float32
}

// sessionList holds a set's sessions in chunks of sessionChunk, so that
// reading a segment adds them without copying those it holds: a slice
// grown by append made 20 MB of garbage reading 100k turns' sessions.
type sessionList struct {
	chunks [][]sessionMeta
	n      int
}

const sessionChunk = 1024

func (l *sessionList) len() int { return l.n }

func (l *sessionList) at(i int) *sessionMeta { return &l.chunks[i/sessionChunk][i%sessionChunk] }

// add appends m and returns its index.
func (l *sessionList) add(m sessionMeta) int32 {
	if l.n%sessionChunk == 0 && l.n/sessionChunk == len(l.chunks) {
		l.chunks = append(l.chunks, make([]sessionMeta, sessionChunk))
	}
	*l.at(l.n) = m
	l.n++
	return int32(l.n - 1)
}

// truncate drops the sessions from the nth on.
func (l *sessionList) truncate(n int) {
	for i := n; i < l.n; i++ {
		*l.at(i) = sessionMeta{}
	}
	l.n = n
}

// sessionMeta is what a recall needs of a session to scope its chunks.
type sessionMeta struct {
	id, project     string
	harness, origin string
	subagent        bool
	hasStart        bool
	startedNS       int64
}

// session is vector i's session.
func (v *vectorSet) session(i int) *sessionMeta { return v.sessions.at(int(v.of[i])) }

func (v *vectorSet) len() int { return len(v.keys) }

func (v *vectorSet) vector(i int) []float32 {
	return v.vecs[i*v.dim : (i+1)*v.dim : (i+1)*v.dim]
}

// segmentName is the file of the embedder's segment at a generation; the
// identity is hashed, since it may hold characters no file name can.
func segmentName(identity string, gen int64) string {
	h := sha256.Sum256([]byte(identity))
	return hex.EncodeToString(h[:8]) + "-" + strconv.FormatInt(gen, 10) + ".seg"
}

// segmentRow is an embedder's row of the segments table.
type segmentRow struct {
	file    string
	gen     int64
	length  int64
	records int64
	dead    int64
}

type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func readSegmentRow(ctx context.Context, q querier, identity string) (segmentRow, bool, error) {
	var r segmentRow
	err := q.QueryRowContext(ctx, `SELECT file, gen, length, records, dead FROM segments WHERE embedder = ?`, identity).
		Scan(&r.file, &r.gen, &r.length, &r.records, &r.dead)
	if errors.Is(err, sql.ErrNoRows) {
		return r, false, nil
	}
	if err != nil {
		return r, false, fmt.Errorf("store: reading the vector segments: %w", err)
	}
	return r, true, nil
}

// flushVectors moves the transaction's pending vectors and deletions into
// the segments, before it commits. compact rewrites every segment without
// its dead vectors (forget). It returns the files to remove once the
// transaction has committed.
func (s *Store) flushVectors(ctx context.Context, tx *sql.Tx, compact bool) ([]string, error) {
	q := `SELECT embedder FROM vectors WHERE vec IS NOT NULL
		UNION SELECT embedder FROM vector_dead`
	if compact {
		q += ` UNION SELECT embedder FROM segments`
	}
	rows, err := tx.QueryContext(ctx, q)
	if err != nil {
		return nil, err
	}
	var identities []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return nil, err
		}
		identities = append(identities, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	var obsolete []string
	for _, id := range identities {
		old, err := s.flushEmbedder(ctx, tx, id, compact)
		if err != nil {
			return nil, fmt.Errorf("writing the %s vectors: %w", id, err)
		}
		obsolete = append(obsolete, old...)
	}
	return obsolete, nil
}

func (s *Store) flushEmbedder(ctx context.Context, tx *sql.Tx, identity string, compact bool) ([]string, error) {
	row, ok, err := readSegmentRow(ctx, tx, identity)
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(s.dir, VectorDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	if !ok {
		row = segmentRow{gen: 1, file: segmentName(identity, 1)}
	}
	dead, err := deadVectors(ctx, tx, identity)
	if err != nil {
		return nil, err
	}
	block, n, err := pendingBlock(ctx, tx, identity, dead, s.floatsOf(tx))
	if err != nil {
		return nil, err
	}
	var obsolete []string
	if compact || (row.dead+int64(len(dead)) > 0 && 3*(row.dead+int64(len(dead))) > row.records+int64(n)) {
		// Rewrite: the live vectors of the committed file, then this
		// transaction's block, into a new file.
		f, l, err := openLayout(filepath.Join(dir, row.file), row, ok)
		if f != nil {
			defer f.Close()
		}
		if err != nil {
			return nil, err
		}
		next := segmentRow{gen: row.gen + 1}
		next.file = segmentName(identity, next.gen)
		length, live, err := writeCompacted(filepath.Join(dir, next.file), f, l, dead, block)
		if err != nil {
			return nil, err
		}
		next.length = length
		next.records = int64(live + n)
		if ok {
			obsolete = append(obsolete, filepath.Join(dir, row.file))
		}
		row = next
	} else if len(block) > 0 {
		if err := appendAt(filepath.Join(dir, row.file), row.length, block); err != nil {
			return nil, err
		}
		row.length += int64(len(block))
		row.records += int64(n)
		row.dead += int64(len(dead))
	}
	if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO segments(embedder, file, gen, length, records, dead) VALUES (?, ?, ?, ?, ?, ?)`,
		identity, row.file, row.gen, row.length, row.records, row.dead); err != nil {
		return nil, err
	}
	// INDEXED BY: the planner prefers the primary key (embedder first),
	// which steps through every vector of the embedder at every commit;
	// at 100k turns that made indexing 2.5 times slower per turn.
	if _, err := tx.ExecContext(ctx, `UPDATE vectors INDEXED BY vectors_pending SET vec = NULL WHERE embedder = ? AND vec IS NOT NULL`, identity); err != nil {
		return nil, err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM vector_floats WHERE embedder = ?`, identity); err != nil {
		return nil, err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM vector_dead WHERE embedder = ?`, identity); err != nil {
		return nil, err
	}
	return obsolete, nil
}

// deadVectors lists the flushed vectors of the embedder deleted in this
// transaction.
func deadVectors(ctx context.Context, tx *sql.Tx, identity string) ([]vectorKey, error) {
	rows, err := tx.QueryContext(ctx, `SELECT turn_id, part FROM vector_dead WHERE embedder = ?`, identity)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []vectorKey
	for rows.Next() {
		var k vectorKey
		if err := rows.Scan(&k.turnID, &k.part); err != nil {
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
type pendingFloats struct {
	m map[floatKey][]float32
	// obsolete are the files that flushes before the transaction's last
	// replaced, to remove once it commits.
	obsolete []string
}

// flushed lets go of the floats a flush before the commit wrote, and
// keeps the files it replaced for removal after the commit.
func (p *pendingFloats) flushed(obsolete []string) {
	if p == nil {
		return
	}
	clear(p.m)
	p.obsolete = append(p.obsolete, obsolete...)
}

type floatKey struct {
	embedder string
	key      vectorKey
}

func (p *pendingFloats) put(embedder string, k vectorKey, v []float32) {
	p.m[floatKey{embedder: embedder, key: k}] = v
}

// openFloats gives tx its pendingFloats, for putVectors and the flush.
func (s *Store) openFloats(tx *sql.Tx) {
	s.floatsMu.Lock()
	defer s.floatsMu.Unlock()
	if s.floats == nil {
		s.floats = map[*sql.Tx]*pendingFloats{}
	}
	s.floats[tx] = &pendingFloats{m: map[floatKey][]float32{}}
}

// closeFloats lets go of tx's pendingFloats.
func (s *Store) closeFloats(tx *sql.Tx) {
	s.floatsMu.Lock()
	defer s.floatsMu.Unlock()
	delete(s.floats, tx)
}

// floatsOf is tx's pendingFloats (nil outside write).
func (s *Store) floatsOf(tx *sql.Tx) *pendingFloats {
	s.floatsMu.Lock()
	defer s.floatsMu.Unlock()
	return s.floats[tx]
}

// pendingBlock encodes the dead markers and the pending vectors of the
// embedder as one block (nil when there are neither). A pending empty
// vector (a chunk with no semantic signal) has no record, only a marker,
// since it may replace a flushed vector of the same turn and part. Floats
// come from vector_floats where a schema upgrade parked them, else from
// the transaction's pendingFloats.
func pendingBlock(ctx context.Context, tx *sql.Tx, identity string, dead []vectorKey, floats *pendingFloats) ([]byte, int, error) {
	// INDEXED BY: the pending few, not every vector (see flushEmbedder).
	rows, err := tx.QueryContext(ctx, `SELECT v.turn_id, v.part, f.vec, s.id, s.project, s.path, s.harness, s.subagent, s.started_ns
		FROM vectors v INDEXED BY vectors_pending JOIN turn_rows t ON t.id = v.turn_id JOIN sessions s ON s.id = t.session_id
		LEFT JOIN vector_floats f ON f.embedder = v.embedder AND f.turn_id = v.turn_id AND f.part = v.part
		WHERE v.embedder = ? AND v.vec IS NOT NULL ORDER BY v.turn_id, v.part`, identity)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	var enc blockEncoder
	for rows.Next() {
		var k vectorKey
		var blob []byte
		var m sessionMeta
		var path string
		var started sql.NullInt64
		if err := rows.Scan(&k.turnID, &k.part, &blob, &m.id, &m.project, &path, &m.harness, &m.subagent, &started); err != nil {
			return nil, 0, err
		}
		m.origin, m.startedNS, m.hasStart = originOf(path), started.Int64, started.Valid
		var v []float32
		if blob != nil {
			v = normalize(decodeVector(blob))
		} else if floats != nil {
			v = normalize(floats.m[floatKey{embedder: identity, key: k}])
		}
		if v == nil {
			dead = append(dead, k)
			continue
		}
		if err := enc.add(k, &m, v); err != nil {
			return nil, 0, err
		}
	}
	if err := rows.Err(); err != nil {
		return nil, 0, err
	}
	if enc.n == 0 && len(dead) == 0 {
		return nil, 0, nil
	}
	return enc.encode(dead), enc.n, nil
}

// blockEncoder gathers one block's records and the sessions they name.
type blockEncoder struct {
	dim, n   int
	keys     []byte
	floats   []byte
	sessions []byte
	at       map[string]uint32
}

func (e *blockEncoder) add(k vectorKey, m *sessionMeta, v []float32) error {
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
func (e *blockEncoder) addKey(k vectorKey, m *sessionMeta) {
	if e.at == nil {
		e.at = map[string]uint32{}
	}
	i, ok := e.at[m.id]
	if !ok {
		i = uint32(len(e.at))
		e.at[m.id] = i
		for _, str := range []string{m.id, m.project, m.harness, m.origin} {
			e.sessions = appendString(e.sessions, str)
		}
		e.sessions = append(e.sessions, boolByte(m.subagent), boolByte(m.hasStart))
		e.sessions = binary.LittleEndian.AppendUint64(e.sessions, uint64(m.startedNS))
	}
	e.keys = binary.LittleEndian.AppendUint64(e.keys, uint64(k.turnID))
	e.keys = binary.LittleEndian.AppendUint32(e.keys, uint32(k.part))
	e.keys = binary.LittleEndian.AppendUint32(e.keys, i)
	e.n++
}

// encode is the block: its head, its floats and its checksum.
func (e *blockEncoder) encode(dead []vectorKey) []byte {
	b := e.head(dead, len(e.floats)+4)
	b = append(b, e.floats...)
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
}

// head is the block up to its floats, with room for more bytes after it.
func (e *blockEncoder) head(dead []vectorKey, room int) []byte {
	b := make([]byte, 0, 20+12*len(dead)+len(e.sessions)+len(e.keys)+room)
	b = append(b, segmentMagic...)
	b = binary.LittleEndian.AppendUint32(b, uint32(e.dim))
	b = binary.LittleEndian.AppendUint32(b, uint32(e.n))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(dead)))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(e.at)))
	for _, k := range dead {
		b = binary.LittleEndian.AppendUint64(b, uint64(k.turnID))
		b = binary.LittleEndian.AppendUint32(b, uint32(k.part))
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

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// appendAt writes block at offset off of the file, cutting off whatever an
// uncommitted flush left past it.
func appendAt(path string, off int64, block []byte) error {
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
func removeSegments(paths []string) {
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

// removeOrphanSegments removes the files of vectors/ the ledger does not
// name: left by a flush that did not commit, or by a process that died
// between a compaction's commit and the old file's removal. Only the
// writer calls it, under the writer's lock.
func (s *Store) removeOrphanSegments(ctx context.Context) error {
	names, err := queryStrings(ctx, s.db, `SELECT file FROM segments`)
	if err != nil {
		return fmt.Errorf("store: reading the vector segments: %w", err)
	}
	keep := map[string]bool{}
	for _, n := range names {
		keep[n] = true
	}
	dir := filepath.Join(s.dir, VectorDir)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var orphans []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".seg") && !keep[e.Name()] {
			orphans = append(orphans, filepath.Join(dir, e.Name()))
		}
	}
	removeSegments(orphans)
	return nil
}

// readSegmentFile reads the first length bytes of a segment file into a
// vectorSet. A file the ledger does not name yet (exists false) is empty.
func (s *Store) readSegmentFile(path string, row segmentRow, exists bool) (*vectorSet, error) {
	if !exists || row.length == 0 {
		return &vectorSet{}, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errSegmentDamaged, err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || fi.Size() < row.length {
		return nil, fmt.Errorf("%w: %s is shorter than the ledger's %d bytes", errSegmentDamaged, filepath.Base(path), row.length)
	}
	set, good := decodeSegment(f, row.length, int(row.records))
	if good != row.length {
		return set, fmt.Errorf("%w: %s fails its checksum at byte %d", errSegmentDamaged, filepath.Base(path), good)
	}
	return set, nil
}

// decodeSegment reads the first length bytes of a segment, applying its
// blocks in order, and returns the live vectors and the length of the
// prefix whose blocks check out. It reads as it goes, so a cold load holds
// the floats once, not the file as well; records is how many the file
// holds, to size the floats up front. While no block has a marker and the
// keys only grow (a new or rewritten file), no vector can replace another,
// and the map that finds them is not built.
func decodeSegment(r io.Reader, length int64, records int) (*vectorSet, int64) {
	d := newSegmentDecoder(r, length, records, true)
	good := d.decode()
	return d.set, good
}

// layoutSegment reads a segment as decodeSegment does, checksums and all,
// but keeps no float: it returns the live vectors' keys and sessions, and
// where each block's floats lie, for a one-shot recall to read them a
// piece at a time (scan.go).
func layoutSegment(r io.Reader, length int64, records int) (*segmentLayout, int64) {
	d := newSegmentDecoder(r, length, records, false)
	good := d.decode()
	return &segmentLayout{set: d.set, blocks: d.spans, alive: d.alive, length: good}, good
}

func newSegmentDecoder(r io.Reader, length int64, records int, floats bool) *segmentDecoder {
	return &segmentDecoder{r: bufio.NewReaderSize(io.LimitReader(r, length), 1<<20), left: length, length: length,
		set: &vectorSet{}, last: vectorKey{turnID: -1}, records: records, floats: floats, strs: map[string]string{}}
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
		w, dim := 0, set.dim
		for i, ok := range d.alive {
			if !ok {
				continue
			}
			set.keys[w], set.of[w] = set.keys[i], set.of[i]
			if d.floats {
				copy(set.vecs[w*dim:(w+1)*dim], set.vecs[i*dim:(i+1)*dim])
			}
			w++
		}
		set.keys, set.of = set.keys[:w], set.of[:w]
		if d.floats {
			set.vecs = set.vecs[:w*dim]
		}
	}
	return good
}

type segmentDecoder struct {
	r       *bufio.Reader
	left    int64 // bytes not read yet
	length  int64 // bytes to read in all
	crc     uint32
	set     *vectorSet
	ids     map[string]int32 // built from the second block on
	blocks  int              // blocks read
	records int
	// last is the greatest key so far while the keys only grow; at and
	// alive replace it from the first marker or key out of order.
	last  vectorKey
	at    map[vectorKey]int
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
	d.crc = crc32.Update(d.crc, castagnoli, p)
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
		d.crc = crc32.Update(d.crc, castagnoli, p)
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
	keys0, sessions0 := len(set.keys), set.sessions.len()
	d.crc = 0
	ok := d.readBlock()
	if ok {
		d.blocks++
	} else {
		for i := sessions0; i < set.sessions.len(); i++ {
			delete(d.ids, set.sessions.at(i).id)
		}
		set.sessions.truncate(sessions0)
		set.keys, set.of = set.keys[:keys0], set.of[:keys0]
		if d.floats {
			set.vecs = set.vecs[:keys0*set.dim]
		}
		if keys0 == 0 {
			set.dim = 0
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
	if !d.read(buf[:4]) || string(buf[:4]) != segmentMagic {
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
	if dim > 1<<16 || int64(nd) > d.left/12 || int64(ns) > d.left/16 || int64(n)*int64(16+4*dim) > d.left || n > 0 && (dim == 0 || set.dim != 0 && dim != set.dim) {
		return false
	}
	marks := make([]byte, 12*nd)
	if !d.read(marks) {
		return false
	}
	d.local = slices.Grow(d.local[:0], ns)[:ns]
	local := d.local
	for j := range local {
		var m sessionMeta
		var ok [4]bool
		m.id, ok[0] = d.str(buf)
		m.project, ok[1] = d.shared(buf)
		m.harness, ok[2] = d.shared(buf)
		m.origin, ok[3] = d.shared(buf)
		if ok != [4]bool{true, true, true, true} || !d.read(buf[:10]) {
			return false
		}
		m.subagent, m.hasStart = buf[0] == 1, buf[1] == 1
		m.startedNS = int64(binary.LittleEndian.Uint64(buf[2:]))
		// A block names each session once; only a later block can name
		// one again (a session that grew), so the first needs no map.
		g, seen := int32(0), false
		if d.blocks > 0 {
			if d.ids == nil {
				d.ids = make(map[string]int32, max(set.sessions.len()*2, 1024))
				for i := range set.sessions.len() {
					d.ids[set.sessions.at(i).id] = int32(i)
				}
			}
			g, seen = d.ids[m.id]
		}
		if !seen {
			g = set.sessions.add(m)
			if d.ids != nil {
				d.ids[m.id] = g
			}
		}
		local[j] = g
	}
	if n > 0 && set.dim == 0 {
		set.dim = dim
		if d.floats {
			set.vecs = make([]float32, 0, max(d.records, n)*dim)
		}
		set.keys = make([]vectorKey, 0, max(d.records, n))
		set.of = make([]int32, 0, max(d.records, n))
	}
	first := len(set.keys)
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
			set.keys = append(set.keys, recordKey(keys[p:]))
			set.of = append(set.of, local[sess])
		}
		left -= len(keys) / 16
	}
	floats := d.length - d.left
	if !d.floats && !d.skip(4*n*dim) {
		return false
	}
	at := len(set.vecs)
	if d.floats {
		set.vecs = slices.Grow(set.vecs, n*dim)[:at+n*dim]
	}
	if v := set.vecs[at:]; len(v) > 0 {
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
		d.spans = append(d.spans, blockSpan{start: start, floats: floats, end: d.length - d.left, first: first, records: n})
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
	for i := first; i < len(set.keys); i++ {
		k := set.keys[i]
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
			if j, ok := d.at[d.set.keys[i]]; ok {
				d.alive[j] = false
			}
			d.at[d.set.keys[i]] = i
			d.alive = append(d.alive, true)
		}
		return
	}
	d.at = make(map[vectorKey]int, max(d.records, n))
	d.alive = make([]bool, n, max(d.records, n))
	for i := range n {
		d.at[d.set.keys[i]] = i
		d.alive[i] = true
	}
}

func recordKey(b []byte) vectorKey {
	return vectorKey{int64(binary.LittleEndian.Uint64(b)), int32(binary.LittleEndian.Uint32(b[8:]))}
}

func keyLess(a, b vectorKey) bool {
	return a.turnID < b.turnID || a.turnID == b.turnID && a.part < b.part
}

// checkFile is the file, in vectors/, by which a reader that found a
// segment damaged asks the next index run to check every segment through.
const checkFile = "check"

// repairSegments checks the embedders' segments before an index run and
// repairs a damaged one: it keeps the blocks that check out and deletes
// the ledger rows of the vectors it lost, so the run embeds those turns
// again. Reading every block costs a full read of the vectors, so a run
// reads them only when a reader asked (checkFile) or a file is missing or
// shorter than the ledger says; otherwise it only looks at the sizes. It
// reports how many turns lost their vectors.
func (s *Store) repairSegments(ctx context.Context) (int, error) {
	if err := s.removeOrphanSegments(ctx); err != nil {
		return 0, err
	}
	identities, err := queryStrings(ctx, s.db, `SELECT identity FROM embedders`)
	if err != nil {
		return 0, fmt.Errorf("store: %w", err)
	}
	flag := filepath.Join(s.dir, VectorDir, checkFile)
	_, err = os.Stat(flag)
	through := err == nil
	lost := 0
	for _, identity := range identities {
		row, ok, err := readSegmentRow(ctx, s.db, identity)
		if err != nil {
			return lost, err
		}
		path := filepath.Join(s.dir, VectorDir, row.file)
		var f *os.File
		var l *segmentLayout
		if ok {
			fi, err := os.Stat(path)
			if err == nil && fi.Size() >= row.length && !through {
				continue
			}
			// The layout checks every block without holding the floats;
			// a damaged file's is that of the blocks that check out.
			f, l, err = openLayout(path, row, true)
			if err == nil {
				f.Close()
				continue
			}
			if !errors.Is(err, errSegmentDamaged) {
				if f != nil {
					f.Close()
				}
				return lost, err
			}
		} else {
			var n int
			if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM (SELECT 1 FROM vectors WHERE embedder = ? AND vec IS NULL LIMIT 1)`, identity).Scan(&n); err != nil {
				return lost, err
			}
			if n == 0 {
				continue // nothing was ever flushed
			}
			// No segment: every flushed vector of the embedder is lost.
			l = &segmentLayout{set: &vectorSet{}}
			row = segmentRow{file: segmentName(identity, 0)}
		}
		n, err := s.dropLost(ctx, identity, f, l, row, path)
		if f != nil {
			f.Close()
		}
		lost += n
		if err != nil {
			return lost, err
		}
	}
	if through {
		_ = os.Remove(flag)
	}
	return lost, nil
}

// askCheck leaves checkFile for the next index run.
func (s *Store) askCheck() {
	dir := filepath.Join(s.dir, VectorDir)
	if os.MkdirAll(dir, 0o700) == nil {
		if f, err := os.OpenFile(filepath.Join(dir, checkFile), os.O_CREATE|os.O_WRONLY, 0o600); err == nil {
			f.Close()
		}
	}
}

// dropLost rewrites a damaged segment as its good part and deletes the
// ledger rows of the turns whose flushed vectors it does not all hold, so
// they are embedded again whole.
func (s *Store) dropLost(ctx context.Context, identity string, f io.ReaderAt, l *segmentLayout, row segmentRow, old string) (int, error) {
	set := l.set
	have := make(map[vectorKey]bool, set.len())
	for _, k := range set.keys {
		have[k] = true
	}
	dir := filepath.Join(s.dir, VectorDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return 0, err
	}
	lost := 0
	err := s.write(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `SELECT turn_id, part FROM vectors WHERE embedder = ? AND vec IS NULL`, identity)
		if err != nil {
			return err
		}
		turns := map[int64]bool{}
		for rows.Next() {
			var k vectorKey
			if err := rows.Scan(&k.turnID, &k.part); err != nil {
				rows.Close()
				return err
			}
			if !have[k] {
				turns[k.turnID] = true
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		var drop []vectorKey
		for _, k := range set.keys {
			if turns[k.turnID] {
				drop = append(drop, k)
			}
		}
		for id := range turns {
			if _, err := tx.ExecContext(ctx, `DELETE FROM vectors WHERE embedder = ? AND turn_id = ?`, identity, id); err != nil {
				return err
			}
		}
		lost = len(turns)
		if _, err := tx.ExecContext(ctx, `DELETE FROM vector_dead WHERE embedder = ?`, identity); err != nil {
			return err
		}
		next := segmentRow{gen: row.gen + 1}
		next.file = segmentName(identity, next.gen)
		length, live, err := writeCompacted(filepath.Join(dir, next.file), f, l, drop, nil)
		if err != nil {
			return err
		}
		next.length, next.records = length, int64(live)
		if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO segments(embedder, file, gen, length, records, dead) VALUES (?, ?, ?, ?, ?, 0)`,
			identity, next.file, next.gen, next.length, next.records); err != nil {
			return err
		}
		if lost > 0 {
			_, err = tx.ExecContext(ctx, `UPDATE embedders SET complete = 0 WHERE identity = ?`, identity)
		}
		return err
	})
	if err != nil {
		return 0, err
	}
	removeSegments([]string{old})
	return lost, nil
}

// blockHead is the length of a block's fixed header: the magic and four
// counts.
const blockHead = 20
