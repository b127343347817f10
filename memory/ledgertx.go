package memory

import (
	"context"
	"database/sql"
	"strings"
	"time"

	"github.com/deja-dev/deja/chunk"
	"github.com/deja-dev/deja/harness"
)

// ledgerTx is a write transaction as an index run sees it: every row the
// run writes, deletes or reads back inside its transaction goes through
// these methods, which alone hold the transaction and its statements. The
// run decides what to write; the store decides how.
type ledgerTx struct {
	s   *Store
	ctx context.Context
	tx  *sql.Tx
	// st are the run's prepared statements bound to tx; zero when the
	// transaction writes no turns (a page of vectors, refusals).
	st       indexStatements
	keywords *keywordBatch
}

// writeLedger runs fn in one write transaction (see write), with the run's
// statements bound to it when stmts is not nil.
func (s *Store) writeLedger(ctx context.Context, stmts *indexStatements, fn func(*ledgerTx) error) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		lt := &ledgerTx{s: s, ctx: ctx, tx: tx, keywords: newKeywordBatch(ctx, tx)}
		if stmts != nil {
			lt.st = stmts.inTx(ctx, tx)
		}
		return fn(lt)
	})
}

// flushKeywords writes the keyword rows of the turns inserted so far.
func (l *ledgerTx) flushKeywords() error { return l.keywords.flush() }

// markIncomplete marks every embedder but except (every one when except
// is empty) as lacking vectors of some turn.
func (l *ledgerTx) markIncomplete(except string) error {
	if except == "" {
		_, err := l.st.allIncomplete.ExecContext(l.ctx)
		return err
	}
	_, err := l.st.othersIncomplete.ExecContext(l.ctx, except)
	return err
}

// deleteSession deletes a stored session, its turns and their keyword rows
// and vectors.
func (l *ledgerTx) deleteSession(id string) error {
	// The delete trigger needs the keyword rows of the session's turns.
	if err := l.keywords.flush(); err != nil {
		return err
	}
	_, err := l.tx.ExecContext(l.ctx, `DELETE FROM sessions WHERE id = ?`, id)
	return err
}

// markAbsent records that a stored session is no longer in its history.
func (l *ledgerTx) markAbsent(id string) error {
	_, err := l.tx.ExecContext(l.ctx, `UPDATE sessions SET present = 0 WHERE id = ?`, id)
	return err
}

// fullDone records that a --full of path has embedded all it holds.
func (l *ledgerTx) fullDone(path string) error {
	_, err := l.tx.ExecContext(l.ctx, `UPDATE files SET full_pending = 0 WHERE path = ?`, l.s.rowPath(path))
	return err
}

// moveTurn brings a stored turn's line up to date.
func (l *ledgerTx) moveTurn(id int64, line int) error {
	_, err := l.st.setLine.ExecContext(l.ctx, line, id)
	return err
}

// touchTurn brings a stored turn's actions and time up to date.
func (l *ledgerTx) touchTurn(id int64, t chunk.Turn) error {
	a, tm := turnActions(t), turnTime(t)
	_, err := l.st.touch.ExecContext(l.ctx, a, tm, id, a, tm)
	return err
}

// dropTurns deletes the session's stored turns after from and before last
// that keep does not keep.
func (l *ledgerTx) dropTurns(session string, from, last int, keep func(turn int) bool) error {
	rows, err := l.tx.QueryContext(l.ctx, `SELECT turn, id FROM turn_rows WHERE session_id = ? AND turn > ? AND turn < ?`, session, from, last)
	if err != nil {
		return err
	}
	type gone struct {
		turn int
		id   int64
	}
	var drop []gone
	for rows.Next() {
		var g gone
		if err := rows.Scan(&g.turn, &g.id); err != nil {
			rows.Close()
			return err
		}
		if !keep(g.turn) {
			drop = append(drop, g)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, g := range drop {
		if err := l.keywords.flushFor(session, g.turn); err != nil {
			return err
		}
		if _, err := l.st.delID.ExecContext(l.ctx, g.id); err != nil {
			return err
		}
	}
	return nil
}

// keptTurn is a stored turn read back whole, for embedding again.
type keptTurn struct {
	id      int64
	project string
	turn    chunk.Turn
	hash    string
}

// keptTurns reads a session's stored turns whole, in order.
func (l *ledgerTx) keptTurns(session string) ([]keptTurn, error) {
	rows, err := l.tx.QueryContext(l.ctx, `
		SELECT t.id, s.project, t.turn, t.line, t.hash, t.user, t.assistant, t.files, t.commands
		FROM turns t JOIN sessions s ON s.id = t.session_id WHERE t.session_id = ? ORDER BY t.turn`, session)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []keptTurn
	for rows.Next() {
		var k keptTurn
		var files, commands string
		if err := rows.Scan(&k.id, &k.project, &k.turn.Index, &k.turn.Line, &k.hash, &k.turn.User, &k.turn.Assistant, &files, &commands); err != nil {
			return nil, err
		}
		k.turn.Files, k.turn.Commands = splitLines(files), splitLines(commands)
		out = append(out, k)
	}
	return out, rows.Err()
}

// putTurn stores a new or changed turn in place of the session's stored
// turn of its index, with its keyword row, and returns its row's ID.
func (l *ledgerTx) putTurn(session string, t chunk.Turn, hash string, packed packedTurn) (int64, error) {
	if err := l.keywords.flushFor(session, t.Index); err != nil {
		return 0, err
	}
	if _, err := l.st.delTurn.ExecContext(l.ctx, session, t.Index); err != nil {
		return 0, err
	}
	files, commands := strings.Join(t.Files, "\n"), strings.Join(t.Commands, "\n")
	res, err := l.st.insTurn.ExecContext(l.ctx, session, t.Index, t.Line, hash, packed.user, packed.assistant,
		files, commands, turnActions(t), turnTime(t), packed.chars)
	if err != nil {
		return 0, err
	}
	id, err := res.LastInsertId()
	if err != nil {
		return 0, err
	}
	return id, l.keywords.add(session, t.Index, keywordRow{id, t.User, t.Assistant, files, commands})
}

// putTurnVectors stores a turn's vectors for the embedder; replace drops
// the ones it had first (a kept turn embedded again).
func (l *ledgerTx) putTurnVectors(identity string, id int64, replace bool, vecs [][]float32) error {
	if replace {
		if _, err := l.st.delVecs.ExecContext(l.ctx, identity, id); err != nil {
			return err
		}
	}
	return putVectors(l.ctx, vectorStmts{l.st.vec, l.s.floatsOf(l.tx)}, identity, id, vecs)
}

// flushVectors moves the vectors put so far into the segments; the
// transaction goes on (see flushSome).
func (l *ledgerTx) flushVectors() error {
	obsolete, err := l.s.flushVectors(l.ctx, l.tx, false)
	if err != nil {
		return err
	}
	l.s.floatsOf(l.tx).flushed(obsolete)
	return nil
}

// upsertSession stores a session's row.
func (l *ledgerTx) upsertSession(path, harnessName string, s harness.Session) error {
	var started, ns any
	if s.HasStart() {
		started = s.Started.Format(time.RFC3339)
	}
	if v, ok := startedNS(s); ok {
		ns = v
	}
	_, err := l.st.session.ExecContext(l.ctx, s.ID, l.s.rowPath(path), sessionProject(s), s.Ordinal, started, ns, s.Header, s.Offset, s.End,
		harnessName, s.Parent, s.Subagent, s.Marker)
	return err
}

// putFileState stores what the next index needs to know of a history.
func (l *ledgerTx) putFileState(path string, st fileState) error {
	if err := l.s.keepPathMark(l.ctx, l.tx, path); err != nil {
		return err
	}
	_, err := l.st.fileState.ExecContext(l.ctx,
		l.s.rowPath(path), l.s.rowDir(path), st.size, st.mtime, st.lastOffset, st.lastOrdinal, st.fingerprint, time.Now().UnixNano(), st.harness, st.full)
	return err
}

// filledTurn is a stored turn's vectors, embedded after it was stored.
type filledTurn struct {
	id      int64
	vectors [][]float32
}

// putFilled stores the vectors of turns stored before, for the embedder.
func (l *ledgerTx) putFilled(identity string, turns []filledTurn) error {
	row, err := l.tx.PrepareContext(l.ctx, insertVector)
	if err != nil {
		return err
	}
	defer row.Close()
	st := vectorStmts{row, l.s.floatsOf(l.tx)}
	for _, t := range turns {
		if err := putVectors(l.ctx, st, identity, t.id, t.vectors); err != nil {
			return err
		}
	}
	return nil
}

// putRefusals records the turns the embedder (at its revision) refused.
func (l *ledgerTx) putRefusals(identity, revision string, refusals []refusal) error {
	if _, err := l.tx.ExecContext(l.ctx, unembeddedSchema); err != nil {
		return err
	}
	stmt, err := l.tx.PrepareContext(l.ctx, `INSERT OR REPLACE INTO unembedded(embedder, session_id, turn, hash, revision, reason) VALUES (?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	defer stmt.Close()
	for _, r := range refusals {
		if _, err := stmt.ExecContext(l.ctx, identity, r.session, r.turn, r.hash, revision, r.reason); err != nil {
			return err
		}
	}
	return nil
}

// embedderComplete reports whether every stored turn has the embedder's
// vectors, as the embedders table says.
func (s *Store) embedderComplete(ctx context.Context, identity string) (bool, error) {
	var complete bool
	err := s.db.QueryRowContext(ctx, `SELECT complete FROM embedders WHERE identity = ?`, identity).Scan(&complete)
	return complete, err
}

// markComplete records that every stored turn has the embedder's vectors.
func (s *Store) markComplete(ctx context.Context, identity string) error {
	_, err := s.db.ExecContext(ctx, `UPDATE embedders SET complete = 1 WHERE identity = ?`, identity)
	return diskHint(err)
}

// turnUser is what a stored turn's user typed.
func (s *Store) turnUser(ctx context.Context, id int64) (string, error) {
	var user string
	err := s.db.QueryRowContext(ctx, `SELECT user FROM turns WHERE id = ?`, id).Scan(&user)
	return user, err
}
