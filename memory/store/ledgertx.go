package store

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
type LedgerTx struct {
	s   *Store
	Ctx context.Context
	tx  *sql.Tx
	// st are the run's prepared statements bound to tx; zero when the
	// transaction writes no turns (a page of vectors, refusals).
	st       IndexStatements
	keywords *keywordBatch
}

// writeLedger runs fn in one write transaction (see write), with the run's
// statements bound to it when stmts is not nil.
func (s *Store) WriteLedger(ctx context.Context, stmts *IndexStatements, fn func(*LedgerTx) error) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		lt := &LedgerTx{s: s, Ctx: ctx, tx: tx, keywords: newKeywordBatch(ctx, tx)}
		if stmts != nil {
			lt.st = stmts.inTx(ctx, tx)
		}
		return fn(lt)
	})
}

// flushKeywords writes the keyword rows of the turns inserted so far.
func (l *LedgerTx) FlushKeywords() error { return l.keywords.flush() }

// markIncomplete marks every embedder but except (every one when except
// is empty) as lacking vectors of some turn.
func (l *LedgerTx) MarkIncomplete(except string) error {
	if except == "" {
		_, err := l.st.allIncomplete.ExecContext(l.Ctx)
		return err
	}
	_, err := l.st.othersIncomplete.ExecContext(l.Ctx, except)
	return err
}

// deleteSession deletes a stored session, its turns and their keyword rows
// and vectors.
func (l *LedgerTx) DeleteSession(id string) error {
	// The delete trigger needs the keyword rows of the session's turns.
	if err := l.keywords.flush(); err != nil {
		return err
	}
	_, err := l.tx.ExecContext(l.Ctx, `DELETE FROM sessions WHERE id = ?`, id)
	return err
}

// markAbsent records that a stored session is no longer in its history.
func (l *LedgerTx) MarkAbsent(id string) error {
	_, err := l.tx.ExecContext(l.Ctx, `UPDATE sessions SET present = 0 WHERE id = ?`, id)
	return err
}

// fullDone records that a --full of path has embedded all it holds.
func (l *LedgerTx) FullDone(path string) error {
	_, err := l.tx.ExecContext(l.Ctx, `UPDATE files SET full_pending = 0 WHERE path = ?`, l.s.RowPath(path))
	return err
}

// moveTurn brings a stored turn's line up to date.
func (l *LedgerTx) MoveTurn(id int64, line int) error {
	_, err := l.st.setLine.ExecContext(l.Ctx, line, id)
	return err
}

// touchTurn brings a stored turn's actions and time up to date.
func (l *LedgerTx) TouchTurn(id int64, t chunk.Turn) error {
	a, tm := turnActions(t), turnTime(t)
	_, err := l.st.touch.ExecContext(l.Ctx, a, tm, id, a, tm)
	return err
}

// dropTurns deletes the session's stored turns after from and before last
// that keep does not keep.
func (l *LedgerTx) DropTurns(session string, from, last int, keep func(turn int) bool) error {
	rows, err := l.tx.QueryContext(l.Ctx, `SELECT turn, id FROM turn_rows WHERE session_id = ? AND turn > ? AND turn < ?`, session, from, last)
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
		if _, err := l.st.delID.ExecContext(l.Ctx, g.id); err != nil {
			return err
		}
	}
	return nil
}

// keptTurn is a stored turn read back whole, for embedding again.
type keptTurn struct {
	Id      int64
	Project string
	Turn    chunk.Turn
	Hash    string
}

// keptTurns reads a session's stored turns whole, in order.
func (l *LedgerTx) KeptTurns(session string) ([]keptTurn, error) {
	rows, err := l.tx.QueryContext(l.Ctx, `
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
		if err := rows.Scan(&k.Id, &k.Project, &k.Turn.Index, &k.Turn.Line, &k.Hash, &k.Turn.User, &k.Turn.Assistant, &files, &commands); err != nil {
			return nil, err
		}
		k.Turn.Files, k.Turn.Commands = SplitLines(files), SplitLines(commands)
		out = append(out, k)
	}
	return out, rows.Err()
}

// putTurn stores a new or changed turn in place of the session's stored
// turn of its index, with its keyword row, and returns its row's ID.
func (l *LedgerTx) PutTurn(session string, t chunk.Turn, hash string, packed PackedTurn) (int64, error) {
	if err := l.keywords.flushFor(session, t.Index); err != nil {
		return 0, err
	}
	if _, err := l.st.delTurn.ExecContext(l.Ctx, session, t.Index); err != nil {
		return 0, err
	}
	files, commands := strings.Join(t.Files, "\n"), strings.Join(t.Commands, "\n")
	res, err := l.st.insTurn.ExecContext(l.Ctx, session, t.Index, t.Line, hash, packed.User, packed.assistant,
		files, commands, turnActions(t), turnTime(t), packed.Chars)
	if err != nil {
		return 0, err
	}
	id, err := res.LastInsertId()
	if err != nil {
		return 0, err
	}
	if err := PutWork(l.Ctx, l.st.insWork, id, t.Work); err != nil {
		return 0, err
	}
	return id, l.keywords.add(session, t.Index, keywordRow{id, t.User, t.Assistant, files, commands})
}

// putTurnVectors stores a turn's vectors for the embedder; replace drops
// the ones it had first (a kept turn embedded again).
func (l *LedgerTx) PutTurnVectors(identity string, id int64, replace bool, vecs [][]float32) error {
	if replace {
		if _, err := l.st.delVecs.ExecContext(l.Ctx, identity, id); err != nil {
			return err
		}
	}
	return putVectors(l.Ctx, vectorStmts{l.st.vec, l.s.floatsOf(l.tx)}, identity, id, vecs)
}

// flushVectors moves the vectors put so far into the segments; the
// transaction goes on (see flushSome).
func (l *LedgerTx) FlushVectors() error {
	obsolete, err := l.s.flushVectors(l.Ctx, l.tx, false)
	if err != nil {
		return err
	}
	l.s.floatsOf(l.tx).Flushed(obsolete)
	return nil
}

// upsertSession stores a session's row.
func (l *LedgerTx) UpsertSession(path, harnessName string, s harness.Session) error {
	var started, ns any
	if s.HasStart() {
		started = s.Started.Format(time.RFC3339)
	}
	if v, ok := startedNS(s); ok {
		ns = v
	}
	_, err := l.st.session.ExecContext(l.Ctx, s.ID, l.s.RowPath(path), SessionProject(s), s.Ordinal, started, ns, s.Header, s.Offset, s.End,
		harnessName, s.Parent, s.Subagent, s.Marker)
	return err
}

// putFileState stores what the next index needs to know of a history.
func (l *LedgerTx) PutFileState(path string, st FileState) error {
	if err := l.s.keepPathMark(l.Ctx, l.tx, path); err != nil {
		return err
	}
	_, err := l.st.fileState.ExecContext(l.Ctx,
		l.s.RowPath(path), l.s.rowDir(path), st.Size, st.Mtime, st.LastOffset, st.LastOrdinal, st.Fingerprint, time.Now().UnixNano(), st.Harness, st.Full)
	return err
}

// filledTurn is a stored turn's vectors, embedded after it was stored.
type FilledTurn struct {
	Id      int64
	Vectors [][]float32
}

// putFilled stores the vectors of turns stored before, for the embedder.
func (l *LedgerTx) PutFilled(identity string, turns []FilledTurn) error {
	row, err := l.tx.PrepareContext(l.Ctx, insertVector)
	if err != nil {
		return err
	}
	defer row.Close()
	st := vectorStmts{row, l.s.floatsOf(l.tx)}
	for _, t := range turns {
		if err := putVectors(l.Ctx, st, identity, t.Id, t.Vectors); err != nil {
			return err
		}
	}
	return nil
}

// putRefusals records the turns the embedder (at its revision) refused.
func (l *LedgerTx) PutRefusals(identity, revision string, refusals []Refusal) error {
	if _, err := l.tx.ExecContext(l.Ctx, unembeddedSchema); err != nil {
		return err
	}
	stmt, err := l.tx.PrepareContext(l.Ctx, `INSERT OR REPLACE INTO unembedded(embedder, session_id, turn, hash, revision, reason) VALUES (?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	defer stmt.Close()
	for _, r := range refusals {
		if _, err := stmt.ExecContext(l.Ctx, identity, r.Session, r.Turn, r.Hash, revision, r.Reason); err != nil {
			return err
		}
	}
	return nil
}

// embedderComplete reports whether every stored turn has the embedder's
// vectors, as the embedders table says.
func (s *Store) EmbedderComplete(ctx context.Context, identity string) (bool, error) {
	var complete bool
	err := s.db.QueryRowContext(ctx, `SELECT complete FROM embedders WHERE identity = ?`, identity).Scan(&complete)
	return complete, err
}

// markComplete records that every stored turn has the embedder's vectors.
func (s *Store) MarkComplete(ctx context.Context, identity string) error {
	_, err := s.db.ExecContext(ctx, `UPDATE embedders SET complete = 1 WHERE identity = ?`, identity)
	return diskHint(err)
}

// turnUser is what a stored turn's user typed.
func (s *Store) TurnUser(ctx context.Context, id int64) (string, error) {
	var user string
	err := s.db.QueryRowContext(ctx, `SELECT user FROM turns WHERE id = ?`, id).Scan(&user)
	return user, err
}
