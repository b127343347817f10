package memory

import (
	"context"
	"database/sql"
	"strings"
	"time"

	"github.com/deja-dev/deja/chunk"
	"github.com/deja-dev/deja/harness"
)

// ledgerWriter writes one history's sessions inside the transaction that
// commits them, a batch of turns at a time: a turn's texts and vectors live
// only until its batch is written, so memory follows the largest batch and
// turn, not the file. Every statement has a fixed number of variables, so
// no session or turn is too large for SQLite's limit on them.
type ledgerWriter struct {
	ix  *indexer
	ctx context.Context
	tx  *sql.Tx
	// full re-embeds turns the store already holds unchanged.
	full bool

	delTurn, insTurn, delID, setLine, touch, vec, delVecs *sql.Stmt
}

func (ix *indexer) newLedgerWriter(ctx context.Context, tx *sql.Tx, full bool) (*ledgerWriter, error) {
	w := &ledgerWriter{ix: ix, ctx: ctx, tx: tx, full: full}
	for _, p := range []struct {
		stmt  **sql.Stmt
		query string
	}{
		{&w.delTurn, `DELETE FROM turns WHERE session_id = ? AND turn = ?`},
		{&w.insTurn, `INSERT INTO turns(session_id, turn, line, hash, user, assistant, files, commands, actions, time_ns) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`},
		{&w.delID, `DELETE FROM turns WHERE id = ?`},
		{&w.setLine, `UPDATE turns SET line = ? WHERE id = ?`},
		// touch brings the actions and times of a stored turn up to date
		// where its content did not change, so a store written before the
		// harness recorded them gains them without re-embedding.
		{&w.touch, `UPDATE turns SET actions = ?, time_ns = ? WHERE id = ? AND (actions != ? OR time_ns IS NOT ?)`},
		{&w.vec, insertVector},
		{&w.delVecs, `DELETE FROM vectors WHERE embedder = ? AND turn_id = ?`},
	} {
		stmt, err := tx.PrepareContext(ctx, p.query)
		if err != nil {
			w.close()
			return nil, err
		}
		*p.stmt = stmt
	}
	return w, nil
}

func (w *ledgerWriter) close() {
	for _, s := range []*sql.Stmt{w.delTurn, w.insTurn, w.delID, w.setLine, w.touch, w.vec, w.delVecs} {
		if s != nil {
			s.Close()
		}
	}
}

// embedFailed reports whether embedding failed in this run, so a --full
// did not re-embed everything it read.
func (w *ledgerWriter) embedFailed() bool {
	return w.ix.opts.Embedder != nil && w.ix.emb == nil
}

// session writes a planned session's new and changed turns (with --full,
// all of them) and returns how many it wrote.
func (w *ledgerWriter) session(pl *sessionPlan) (int, error) {
	turns := chunk.Turns(*pl.sess)
	written := 0
	var batch []*newTurn
	texts := 0
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		// A deadline ('deja aider' gives indexing 30 s) stops a long
		// session between batches.
		if err := w.ctx.Err(); err != nil {
			return err
		}
		w.ix.embedTurns(w.ctx, w.tx, batch)
		err := w.writeTurns(batch)
		batch, texts = nil, 0
		return err
	}
	for j, t := range turns {
		h := pl.hashes[j]
		old, stored := pl.stored[t.Index]
		same := stored && old.hash == h
		if same && old.line != t.Line {
			// An earlier session was cut out: the turn moved up the file.
			if _, err := w.setLine.ExecContext(w.ctx, t.Line, old.id); err != nil {
				return 0, err
			}
		}
		if same {
			a, tm := turnActions(t), turnTime(t)
			if _, err := w.touch.ExecContext(w.ctx, a, tm, old.id, a, tm); err != nil {
				return 0, err
			}
		}
		if same && (!w.full || w.ix.emb == nil) {
			continue
		}
		nt := &newTurn{session: pl.sess.ID, project: sessionProject(*pl.sess), turn: t, hash: h, texts: chunk.Texts(t, w.ix.opts.Budget)}
		if same {
			nt.keep = old.id
		}
		written++
		if texts > 0 && texts+len(nt.texts) > embedBatch {
			if err := flush(); err != nil {
				return 0, err
			}
		}
		batch = append(batch, nt)
		texts += len(nt.texts)
		turns[j] = chunk.Turn{}
	}
	if err := flush(); err != nil {
		return 0, err
	}
	return written, w.prune(pl, turns)
}

// prune deletes stored turns of a session that its re-read no longer has
// among the turns it read. Turns after the last one read stay: aider only
// appends, so a session with fewer turns than before was cut by hand (a
// user trimming a big history), and its cut turns stay recallable as a
// session that left the file does.
func (w *ledgerWriter) prune(pl *sessionPlan, turns []chunk.Turn) error {
	if len(turns) == 0 || len(pl.stored) == 0 {
		return nil
	}
	read := make(map[int]bool, len(turns))
	last := turns[0].Index
	for _, t := range turns {
		read[t.Index] = true
		last = max(last, t.Index)
	}
	for i, old := range pl.stored {
		if i < last && !read[i] {
			if _, err := w.delID.ExecContext(w.ctx, old.id); err != nil {
				return err
			}
		}
	}
	return nil
}

// reembed embeds again the stored turns of sessions the history no longer
// holds, for a --full.
func (w *ledgerWriter) reembed(ids []string) error {
	if w.ix.emb == nil {
		return nil
	}
	for _, id := range ids {
		turns, err := w.storedTurns(id)
		if err != nil {
			return err
		}
		for len(turns) > 0 && w.ix.emb != nil {
			if err := w.ctx.Err(); err != nil {
				return err
			}
			var batch []*newTurn
			texts := 0
			for len(turns) > 0 && (texts == 0 || texts+len(turns[0].texts) <= embedBatch) {
				batch = append(batch, turns[0])
				texts += len(turns[0].texts)
				turns = turns[1:]
			}
			w.ix.embedTurns(w.ctx, w.tx, batch)
			if err := w.writeTurns(batch); err != nil {
				return err
			}
		}
	}
	return nil
}

func (w *ledgerWriter) storedTurns(session string) ([]*newTurn, error) {
	rows, err := w.tx.QueryContext(w.ctx, `
		SELECT t.id, s.project, t.turn, t.line, t.hash, t.user, t.assistant, t.files, t.commands
		FROM turns t JOIN sessions s ON s.id = t.session_id WHERE t.session_id = ? ORDER BY t.turn`, session)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*newTurn
	for rows.Next() {
		nt := &newTurn{session: session}
		var files, commands string
		if err := rows.Scan(&nt.keep, &nt.project, &nt.turn.Index, &nt.turn.Line, &nt.hash, &nt.turn.User, &nt.turn.Assistant, &files, &commands); err != nil {
			return nil, err
		}
		nt.turn.Files, nt.turn.Commands = splitLines(files), splitLines(commands)
		nt.texts = chunk.Texts(nt.turn, w.ix.opts.Budget)
		out = append(out, nt)
	}
	return out, rows.Err()
}

// writeTurns stores a batch of turns and their vectors. A new or changed
// turn replaces the stored one; a turn kept (re-embedded by --full) keeps
// its row, so a recall that loaded its vectors still finds it, and has its
// vectors replaced. Turns written without vectors mark the embedder
// incomplete.
func (w *ledgerWriter) writeTurns(turns []*newTurn) error {
	ctx := w.ctx
	emb := w.ix.opts.Embedder
	lacking, inserted := false, false
	for _, t := range turns {
		id := t.keep
		if id == 0 {
			if _, err := w.delTurn.ExecContext(ctx, t.session, t.turn.Index); err != nil {
				return err
			}
			res, err := w.insTurn.ExecContext(ctx, t.session, t.turn.Index, t.turn.Line, t.hash, t.turn.User, t.turn.Assistant,
				strings.Join(t.turn.Files, "\n"), strings.Join(t.turn.Commands, "\n"), turnActions(t.turn), turnTime(t.turn))
			if err != nil {
				return err
			}
			if id, err = res.LastInsertId(); err != nil {
				return err
			}
			inserted = true
		}
		if emb == nil {
			continue
		}
		if t.vectors == nil && len(t.texts) > 0 {
			// Embedding failed: a kept turn keeps its old vectors.
			lacking = lacking || t.keep == 0
			continue
		}
		if t.keep != 0 {
			if _, err := w.delVecs.ExecContext(ctx, emb.Identity(), id); err != nil {
				return err
			}
		}
		if err := putVectors(ctx, w.vec, emb.Identity(), t.project, t.session, t.turn.Index, id, t.vectors); err != nil {
			return err
		}
	}
	if !inserted && !lacking {
		return nil
	}
	// Other embedders' vectors are now incomplete, and so is this one's
	// when embedding failed.
	if lacking || emb == nil {
		_, err := w.tx.ExecContext(ctx, `UPDATE embedders SET complete = 0`)
		return err
	}
	_, err := w.tx.ExecContext(ctx, `UPDATE embedders SET complete = 0 WHERE identity != ?`, emb.Identity())
	return err
}

const insertVector = `INSERT OR REPLACE INTO vectors(embedder, project, turn_id, part, session_id, turn, vec) VALUES (?, ?, ?, ?, ?, ?, ?)`

// putVectors stores one turn's chunk vectors; a turn with no text gets one
// empty vector, so it no longer counts as lacking.
func putVectors(ctx context.Context, stmt *sql.Stmt, identity, project, session string, turn int, turnID int64, vecs [][]float32) error {
	if len(vecs) == 0 {
		_, err := stmt.ExecContext(ctx, identity, project, turnID, 0, session, turn, []byte{})
		return err
	}
	for part, v := range vecs {
		if _, err := stmt.ExecContext(ctx, identity, project, turnID, part, session, turn, encodeVector(v)); err != nil {
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

func upsertSession(ctx context.Context, tx *sql.Tx, path, harnessName string, s harness.Session) error {
	var started, ns any
	if s.HasStart() {
		started = s.Started.Format(time.RFC3339)
	}
	if v, ok := startedNS(s); ok {
		ns = v
	}
	_, err := tx.ExecContext(ctx, `
		INSERT INTO sessions(id, path, project, ordinal, started, started_ns, header, offset, end_offset, present,
			harness, parent, subagent, marker)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?)
		ON CONFLICT(id) DO UPDATE SET path = excluded.path, project = excluded.project,
			ordinal = excluded.ordinal, started = excluded.started, started_ns = excluded.started_ns,
			header = excluded.header, offset = excluded.offset, end_offset = excluded.end_offset, present = 1,
			harness = excluded.harness, parent = excluded.parent, subagent = excluded.subagent, marker = excluded.marker`,
		s.ID, path, sessionProject(s), s.Ordinal, started, ns, s.Header, s.Offset, s.End,
		harnessName, s.Parent, s.Subagent, s.Marker)
	return err
}
