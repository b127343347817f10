package store

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/deja-dev/deja/chunk"
	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/memory/store/segment"
)

// indexStatements are the statements an Index run writes with. They are
// prepared once for the run (preparing them for each file, session and
// batch took 9 % of an index's CPU); each transaction takes them with
// Tx.StmtContext, which reuses what its connection prepared.
type IndexStatements struct {
	delTurn, insTurn, insWork, delID, setLine, touch, vec, delVecs *sql.Stmt
	session, fileState, allIncomplete, othersIncomplete            *sql.Stmt
}

func (st *IndexStatements) all() []**sql.Stmt {
	return []**sql.Stmt{&st.delTurn, &st.insTurn, &st.insWork, &st.delID, &st.setLine, &st.touch, &st.vec, &st.delVecs,
		&st.session, &st.fileState, &st.allIncomplete, &st.othersIncomplete}
}

// prepareIndex prepares an Index run's statements on the store.
func (s *Store) PrepareIndex(ctx context.Context) (*IndexStatements, error) {
	st := &IndexStatements{}
	queries := []string{
		`DELETE FROM turn_rows WHERE session_id = ? AND turn = ?`,
		insertTurn,
		insertWork,
		`DELETE FROM turn_rows WHERE id = ?`,
		`UPDATE turn_rows SET line = ? WHERE id = ?`,
		// touch brings the actions and times of a stored turn up to date
		// where its content did not change, so a store written before the
		// harness recorded them gains them without re-embedding.
		`UPDATE turn_rows SET actions = ?, time_ns = ? WHERE id = ? AND (actions != ? OR time_ns IS NOT ?)`,
		insertVector,
		`DELETE FROM vectors WHERE embedder = ? AND turn_id = ?`,
		upsertSessionSQL,
		putFileStateSQL,
		`UPDATE embedders SET complete = 0`,
		`UPDATE embedders SET complete = 0 WHERE identity != ?`,
	}
	for i, p := range st.all() {
		stmt, err := s.db.PrepareContext(ctx, queries[i])
		if err != nil {
			st.Close()
			return nil, fmt.Errorf("store: %w", err)
		}
		*p = stmt
	}
	return st, nil
}

func (st *IndexStatements) Close() {
	for _, p := range st.all() {
		if *p != nil {
			(*p).Close()
		}
	}
}

// inTx is the statements bound to tx.
func (st *IndexStatements) inTx(ctx context.Context, tx *sql.Tx) IndexStatements {
	var out IndexStatements
	dst := out.all()
	for i, p := range st.all() {
		*dst[i] = tx.StmtContext(ctx, *p)
	}
	return out
}

// insertTurn stores a turn, its question and answer packed and their
// length kept for recall, which weighs it without unpacking them (see
// packTurn).
const insertTurn = `INSERT INTO turn_rows(session_id, turn, line, hash, user, assistant, files, commands, actions, time_ns, chars)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`

// insertWork stores a turn's work (chunk.Work.Encode), packed where
// that pays, and when its last message was written, which recall reads
// without unpacking the work.
const insertWork = `INSERT OR REPLACE INTO turn_work(turn_id, work, end_ns) VALUES (?, ?, ?)`

// PutWork stores a turn's work with insertWork, and nothing for a turn
// that has none.
func PutWork(ctx context.Context, stmt *sql.Stmt, turnID int64, w chunk.Work) error {
	text := w.Encode()
	if text == "" {
		return nil
	}
	var end any
	if !w.End.IsZero() {
		end = w.End.UnixNano()
	}
	_, err := stmt.ExecContext(ctx, turnID, packed(text), end)
	return err
}

// insertVector writes a vector's ledger row, pending (an empty vec) until
// the transaction's flush; its floats wait for that flush in the
// transaction's pendingFloats. Keeping them out of the row leaves the
// ledger's pages full once flushed, and out of SQL altogether spares the
// writer a row to insert and delete for each vector.
const insertVector = `INSERT OR REPLACE INTO vectors(turn_id, embedder, part, vec) VALUES (?, ?, ?, x'')`

// vectorStmts are insertVector, prepared, and the floats of the
// transaction it runs in.
type vectorStmts struct {
	row    *sql.Stmt
	floats *segment.PendingFloats
}

// putVectors stores one turn's chunk vectors; a turn with no text gets one
// empty vector, so it no longer counts as lacking. An empty vector (also a
// zero one) has no floats, which the flush marks dead: it may replace a
// flushed vector of the same turn and part.
func putVectors(ctx context.Context, st vectorStmts, identity string, turnID int64, vecs [][]float32) error {
	put := func(part int, floats []float32) error {
		if _, err := st.row.ExecContext(ctx, turnID, identity, part); err != nil {
			return err
		}
		st.floats.Put(identity, segment.VectorKey{TurnID: turnID, Part: int32(part)}, floats)
		return nil
	}
	if len(vecs) == 0 {
		return put(0, nil)
	}
	for part, v := range vecs {
		if err := put(part, v); err != nil {
			return err
		}
	}
	return nil
}

// Session start times are kept as nanoseconds for ordering and filters only
// within these years; SQLite's 64-bit nanoseconds end in 1677 and 2262, and
// a year aider could not have written (0, 9999) is a damaged header. Outside
// them the time is kept as text, the session sorts after dated ones, and
// --since and --until leave it out, as they do a session with no start.
const firstYear, lastYear = 1900, 2200

// startedNS is the session's start in Unix nanoseconds, when it has one
// within firstYear and lastYear.
func startedNS(s harness.Session) (int64, bool) {
	if !s.HasStart() || s.Started.Year() < firstYear || s.Started.Year() > lastYear {
		return 0, false
	}
	return s.Started.UnixNano(), true
}

const upsertSessionSQL = `
	INSERT INTO sessions(id, path, project, ordinal, started, started_ns, header, offset, end_offset, present,
		harness, parent, subagent, marker)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?)
	ON CONFLICT(id) DO UPDATE SET path = excluded.path, project = excluded.project,
		ordinal = excluded.ordinal, started = excluded.started, started_ns = excluded.started_ns,
		header = excluded.header, offset = excluded.offset, end_offset = excluded.end_offset, present = 1,
		harness = excluded.harness, parent = excluded.parent, subagent = excluded.subagent, marker = excluded.marker`
