package index

import (
	"cmp"
	"context"
	"math"
	"slices"

	"github.com/deja-dev/deja/chunk"
	"github.com/deja-dev/deja/embed"
	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/memory/store"
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
	lt  *store.LedgerTx
	// full re-embeds turns the store already holds unchanged.
	full bool
	// harness names the reader of the sessions written (see dropPrompts).
	harness string

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
	return w.lt.FlushVectors()
}

func (ix *indexer) newLedgerWriter(lt *store.LedgerTx, full bool, harnessName string) *ledgerWriter {
	return &ledgerWriter{ix: ix, ctx: lt.Ctx, lt: lt, full: full, harness: harnessName}
}

// finish gives the turns written their keyword rows and marks the
// embedders whose vectors they lack.
func (w *ledgerWriter) finish() error {
	if err := w.lt.FlushKeywords(); err != nil {
		return err
	}
	emb := w.ix.opts.Embedder
	switch {
	case !w.inserted && !w.lacking:
		return nil
	case w.lacking || emb == nil:
		return w.lt.MarkIncomplete("")
	default:
		return w.lt.MarkIncomplete(emb.Identity())
	}
}

// deleteSession deletes a stored session, its turns and their keyword rows
// and vectors.
func (w *ledgerWriter) deleteSession(id string) error { return w.lt.DeleteSession(id) }

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
			if err := w.lt.MoveTurn(m.id, m.turn.Line); err != nil {
				return err
			}
		}
		for _, m := range part.touched {
			if err := w.lt.TouchTurn(m.id, m.turn); err != nil {
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
			if err := w.dropPrompts(part.pl); err != nil {
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
		same := stored && old.Hash == h
		if same && old.Line != t.Line {
			// An earlier session was cut out: the turn moved up the file.
			part.moved = append(part.moved, chunkedTurn{old.Id, t})
		}
		if same {
			part.touched = append(part.touched, chunkedTurn{old.Id, t})
		}
		if same && (!full || emb == nil) {
			continue
		}
		nt := &newTurn{session: pl.sess.ID, project: store.SessionProject(*pl.sess), turn: t, hash: h, texts: chunk.Texts(t, budget)}
		if same {
			nt.keep = old.Id
		} else {
			nt.packed = store.PackTurn(t.User, t.Assistant)
		}
		if texts > 0 && texts+len(nt.texts) > store.EmbedBatch {
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
	return w.lt.DropTurns(pl.sess.ID, from, last, func(turn int) bool { return read[turn] })
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
			for len(turns) > 0 && (texts == 0 || texts+len(turns[0].texts) <= store.EmbedBatch) {
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
	kept, err := w.lt.KeptTurns(session)
	if err != nil {
		return nil, err
	}
	out := make([]*newTurn, len(kept))
	for i, k := range kept {
		out[i] = &newTurn{session: session, keep: k.Id, project: k.Project, turn: k.Turn, hash: k.Hash, texts: chunk.Texts(k.Turn, w.ix.opts.Budget)}
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
			if id, err = w.lt.PutTurn(t.session, t.turn, t.hash, t.packed); err != nil {
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
		if err := w.lt.PutTurnVectors(emb.Identity(), id, t.keep != 0, t.vectors); err != nil {
			return err
		}
		for _, v := range t.vectors {
			w.pending += len(v)
		}
	}
	return w.flushSome()
}

// upsertSession stores a session's row.
func (w *ledgerWriter) upsertSession(path, harnessName string, s harness.Session) error {
	return w.lt.UpsertSession(path, harnessName, s)
}
