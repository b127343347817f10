package memory

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"math"
	"slices"

	"github.com/deja-dev/deja/chunk"
	"github.com/deja-dev/deja/embed"
	"github.com/deja-dev/deja/harness"
)

// ledgerWriter writes one history's sessions inside the transaction that
// commits them, a batch of turns at a time: a turn's texts and vectors live
// only until its batch is written, so memory follows the largest batch and
// turn, not the file. Every statement has a fixed number of variables, so
// no session or turn is too large for SQLite's limit on them. finish must
// run before the transaction commits.
type ledgerWriter struct {
	ix  *indexer
	ctx context.Context
	lt  *ledgerTx
	// full re-embeds turns the store already holds unchanged.
	full bool

	// inserted and lacking say what finish tells the embedders table:
	// turns were inserted (every other embedder now lacks vectors), and
	// some of them lack this run's embedder's too.
	inserted, lacking bool
	// pending counts the floats of the vectors put since the last flush
	// (see flushSome).
	pending int
}

// flushEvery is how many floats of pending vectors a write transaction
// holds before the writer appends them to the segments as a block of
// their own (see flushSome): a 1 GB transcript held the vectors of all its
// 223,626 turns until its commit, 180 MB as floats and as the block.
const flushEvery = 4 << 20

// flushSome moves the pending vectors into the segments once there are
// flushEvery floats of them. The transaction goes on; a block appended
// before it commits is like the one its commit appends (see flushVectors),
// past the committed length until then.
func (w *ledgerWriter) flushSome() error {
	if w.pending < cmp.Or(w.ix.opts.flushEvery, flushEvery) {
		return nil
	}
	w.pending = 0
	return w.lt.flushVectors()
}

// indexStatements are the statements an Index run writes with. They are
// prepared once for the run (preparing them for each file, session and
// batch took 9 % of an index's CPU); each transaction takes them with
// Tx.StmtContext, which reuses what its connection prepared.
type indexStatements struct {
	delTurn, insTurn, delID, setLine, touch, vec, delVecs *sql.Stmt
	session, fileState, allIncomplete, othersIncomplete   *sql.Stmt
}

func (st *indexStatements) all() []**sql.Stmt {
	return []**sql.Stmt{&st.delTurn, &st.insTurn, &st.delID, &st.setLine, &st.touch, &st.vec, &st.delVecs,
		&st.session, &st.fileState, &st.allIncomplete, &st.othersIncomplete}
}

// prepareIndex prepares an Index run's statements on the store.
func (s *Store) prepareIndex(ctx context.Context) (*indexStatements, error) {
	st := &indexStatements{}
	queries := []string{
		`DELETE FROM turn_rows WHERE session_id = ? AND turn = ?`,
		insertTurn,
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
			st.close()
			return nil, fmt.Errorf("store: %w", err)
		}
		*p = stmt
	}
	return st, nil
}

func (st *indexStatements) close() {
	for _, p := range st.all() {
		if *p != nil {
			(*p).Close()
		}
	}
}

// inTx is the statements bound to tx.
func (st *indexStatements) inTx(ctx context.Context, tx *sql.Tx) indexStatements {
	var out indexStatements
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

func (ix *indexer) newLedgerWriter(lt *ledgerTx, full bool) *ledgerWriter {
	return &ledgerWriter{ix: ix, ctx: lt.ctx, lt: lt, full: full}
}

// finish gives the turns written their keyword rows and marks the
// embedders whose vectors they lack.
func (w *ledgerWriter) finish() error {
	if err := w.lt.flushKeywords(); err != nil {
		return err
	}
	emb := w.ix.opts.Embedder
	switch {
	case !w.inserted && !w.lacking:
		return nil
	case w.lacking || emb == nil:
		return w.lt.markIncomplete("")
	default:
		return w.lt.markIncomplete(emb.Identity())
	}
}

// deleteSession deletes a stored session, its turns and their keyword rows
// and vectors.
func (w *ledgerWriter) deleteSession(id string) error { return w.lt.deleteSession(id) }

// embedFailed reports whether embedding failed in this run, so a --full
// did not re-embed everything it read.
func (w *ledgerWriter) embedFailed() bool {
	return w.ix.opts.Embedder != nil && w.ix.emb == nil
}

// sessionPart is a piece of a planned session, ready for the writer: the
// stored turns that only moved up the file or gained actions and times,
// then a batch of turns to write, embedded.
type sessionPart struct {
	pl *sessionPlan
	// moved and touched are stored turns whose line, or actions and time,
	// are to be brought up to date.
	moved, touched []chunkedTurn
	batch          []*newTurn
	embedded       []embedded
	// last marks the session's last part; read holds the indexes of the
	// turns read of it, for prune.
	last bool
	read []int
	err  error
}

// chunkedTurn is a stored turn and the turn read for it.
type chunkedTurn struct {
	id   int64
	turn chunk.Turn
}

// sessions writes planned sessions' new and changed turns (with --full,
// all of them), in order, calling written after each session with how
// many of its turns it wrote. The turns are built and embedded on a
// goroutine of their own, a batch ahead of the writer: the writer keeps
// the store's only connection that writes busy on one core while the
// embedder runs on the other.
func (w *ledgerWriter) sessions(plans []*sessionPlan, upsert func(*sessionPlan) error, written func(*sessionPlan, int)) error {
	ctx, cancel := context.WithCancel(w.ctx)
	parts := make(chan sessionPart, 1)
	go w.prepare(ctx, plans, parts)
	defer func() {
		cancel()
		for range parts {
		}
	}()
	var current *sessionPlan
	n := 0
	for part := range parts {
		if part.err != nil {
			return part.err
		}
		if part.pl != current {
			current, n = part.pl, 0
			if err := upsert(part.pl); err != nil {
				return err
			}
		}
		for _, m := range part.moved {
			if err := w.lt.moveTurn(m.id, m.turn.Line); err != nil {
				return err
			}
		}
		for _, m := range part.touched {
			if err := w.lt.touchTurn(m.id, m.turn); err != nil {
				return err
			}
		}
		if len(part.batch) > 0 {
			if err := w.ix.noteEmbedded(w.ctx, w.lt, part.embedded); err != nil {
				return err
			}
			if err := w.writeTurns(part.batch); err != nil {
				return err
			}
			n += len(part.batch)
		}
		if part.last {
			read := append(slices.Clip(part.pl.readBefore), part.read...)
			if err := w.prune(part.pl, read); err != nil {
				return err
			}
			part.pl.readAll = read
			written(part.pl, n)
		}
	}
	return nil
}

// prepare builds the parts of the planned sessions and embeds their
// batches, and sends them to out, which it closes. It touches neither the
// transaction nor the run's report: the writer records what it did.
func (w *ledgerWriter) prepare(ctx context.Context, plans []*sessionPlan, out chan<- sessionPart) {
	defer close(out)
	// emb is the writer's until it learns of a failure, which stops the
	// embedding here at once.
	emb := w.ix.emb
	send := func(p sessionPart) bool {
		select {
		case out <- p:
			return true
		case <-ctx.Done():
			return false
		}
	}
	for _, pl := range plans {
		if pl.made != nil && emb != nil {
			// The reading stage cut and embedded it already.
			for _, part := range pl.made {
				part.pl = pl
				if failed(part.embedded) {
					emb = nil
				}
				if !send(part) {
					return
				}
			}
			continue
		}
		var ok bool
		if emb, ok = cutSession(ctx, pl, chunk.Turns(*pl.sess), emb, w.full, w.ix.opts.Budget, send); !ok {
			return
		}
	}
}

// cutSession cuts a planned session's turns (chunk.Turns of it) into the
// parts the writer writes: the stored turns that only moved up the file or
// gained actions and times, and batches of turns to write, each embedded
// with emb (nil: none) before it goes to emit. It returns the embedder for
// what follows, nil once a call failed, and false when emit refused a part
// or ctx ended.
func cutSession(ctx context.Context, pl *sessionPlan, turns []chunk.Turn, emb embed.Embedder, full bool, budget int, emit func(sessionPart) bool) (embed.Embedder, bool) {
	part := sessionPart{pl: pl}
	texts := 0
	// The indexes outlive the turns, which are let go once batched: a
	// zeroed turn reads as turn 0, and prune took the turn before an aider
	// session's first message (turn -1) for one cut from it.
	read := make([]int, len(turns))
	for j, t := range turns {
		read[j] = t.Index
	}
	flush := func() bool {
		if len(part.batch) > 0 {
			// A deadline ('deja aider' gives indexing 30 s) stops a
			// long session between batches.
			if err := ctx.Err(); err != nil {
				emit(sessionPart{err: err})
				return false
			}
			part.embedded = embedTurns(ctx, emb, part.batch)
			if failed(part.embedded) {
				emb = nil
			}
		}
		ok := emit(part)
		part, texts = sessionPart{pl: pl}, 0
		return ok
	}
	for j, t := range turns {
		h := pl.hashes[j]
		old, stored := pl.stored[t.Index]
		same := stored && old.hash == h
		if same && old.line != t.Line {
			// An earlier session was cut out: the turn moved up the file.
			part.moved = append(part.moved, chunkedTurn{old.id, t})
		}
		if same {
			part.touched = append(part.touched, chunkedTurn{old.id, t})
		}
		if same && (!full || emb == nil) {
			continue
		}
		nt := &newTurn{session: pl.sess.ID, project: sessionProject(*pl.sess), turn: t, hash: h, texts: chunk.Texts(t, budget)}
		if same {
			nt.keep = old.id
		} else {
			nt.packed = packTurn(t.User, t.Assistant)
		}
		if texts > 0 && texts+len(nt.texts) > embedBatch {
			if !flush() {
				return emb, false
			}
		}
		part.batch = append(part.batch, nt)
		texts += len(nt.texts)
		turns[j] = chunk.Turn{}
	}
	part.last, part.read = true, read
	return emb, flush()
}

// prune deletes stored turns of a session that its re-read no longer has
// among the turns it read (indexes). Turns after the last one read stay:
// aider only appends, so a session with fewer turns than before was cut by
// hand (a user trimming a big history), and its cut turns stay recallable
// as a session that left the file does. A session streamed in pieces is
// pruned piece by piece: a piece's prune looks only past the turns the
// pieces before it read (pl.readBefore, pruned with them), and asks the
// store for those turns rather than hold the session's.
func (w *ledgerWriter) prune(pl *sessionPlan, indexes []int) error {
	if len(indexes) == 0 || pl.lastStored == math.MinInt {
		return nil
	}
	from := math.MinInt
	for _, i := range pl.readBefore {
		from = max(from, i)
	}
	read := map[int]bool{}
	last := indexes[0]
	for _, i := range indexes {
		if i > from {
			read[i] = true
		}
		last = max(last, i)
	}
	return w.lt.dropTurns(pl.sess.ID, from, last, func(turn int) bool { return read[turn] })
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
			if err := w.ix.noteEmbedded(w.ctx, w.lt, embedTurns(w.ctx, w.ix.emb, batch)); err != nil {
				return err
			}
			if err := w.writeTurns(batch); err != nil {
				return err
			}
		}
	}
	return nil
}

func (w *ledgerWriter) storedTurns(session string) ([]*newTurn, error) {
	kept, err := w.lt.keptTurns(session)
	if err != nil {
		return nil, err
	}
	out := make([]*newTurn, len(kept))
	for i, k := range kept {
		out[i] = &newTurn{session: session, keep: k.id, project: k.project, turn: k.turn, hash: k.hash, texts: chunk.Texts(k.turn, w.ix.opts.Budget)}
	}
	return out, nil
}

// writeTurns stores a batch of turns and their vectors. A new or changed
// turn replaces the stored one; a turn kept (re-embedded by --full) keeps
// its row, so a recall that loaded its vectors still finds it, and has its
// vectors replaced. Turns written without vectors mark the embedder
// incomplete (finish).
func (w *ledgerWriter) writeTurns(turns []*newTurn) error {
	emb := w.ix.opts.Embedder
	for _, t := range turns {
		id := t.keep
		if id == 0 {
			var err error
			if id, err = w.lt.putTurn(t.session, t.turn, t.hash, t.packed); err != nil {
				return err
			}
			w.inserted = true
		}
		if emb == nil {
			continue
		}
		if t.vectors == nil && len(t.texts) > 0 {
			// Embedding failed: a kept turn keeps its old vectors.
			w.lacking = w.lacking || t.keep == 0
			continue
		}
		if err := w.lt.putTurnVectors(emb.Identity(), id, t.keep != 0, t.vectors); err != nil {
			return err
		}
		for _, v := range t.vectors {
			w.pending += len(v)
		}
	}
	return w.flushSome()
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
	floats *pendingFloats
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
		st.floats.put(identity, vectorKey{turnID: turnID, part: int32(part)}, floats)
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

// upsertSession stores a session's row.
func (w *ledgerWriter) upsertSession(path, harnessName string, s harness.Session) error {
	return w.lt.upsertSession(path, harnessName, s)
}
