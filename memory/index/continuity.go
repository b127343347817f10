package index

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/deja-dev/deja/chunk"
	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/memory/store"
)

// sessionPlan is a parsed session ready to be written: redacted, with the
// hashes of its turns and what the store already holds of it.
type sessionPlan struct {
	sess *harness.Session
	// hashes are the hashes of chunk.Turns(*sess), in that order.
	hashes []string
	// stored are the session's turns in the store whose indexes lie
	// among those of the turns read (a piece's, when it is streamed), by
	// turn index; lastStored is the greatest index the store holds of it
	// (math.MinInt: none).
	stored     map[int]store.LedgerTurn
	lastStored int
	// pending is how many of its turns are to be written or embedded.
	pending int
	// continues is false when the store holds a session of this ID that
	// this one is not (see continues).
	continues bool
	// made, for a session the store did not know, are the parts the
	// reading stage cut it into and embedded (see cutSession).
	made []sessionPart
	// readBefore are the indexes of the turns read of the session in the
	// windows before, for a session streamed in pieces; readAll, once it
	// is written, those and this window's: prune keeps them all.
	readBefore, readAll []int
}

// plan gives the parsed sessions that are not forgotten their project,
// redacts them and compares each with the stored session of its ID (see
// planHashed). Turns are built here for their hashes only and dropped
// again, so one session's turns are in memory at a time.
func (ix *indexer) plan(ctx context.Context, path string, folder bool, sessions []harness.Session, tomb map[string]bool, known []store.KnownSession, full bool) ([]*sessionPlan, error) {
	ix.s.NotePathSecret(path, sessions)
	ix.rep.Redacted += redactSessions(sessions, tomb)
	return ix.planHashed(ctx, sessions, turnHashes(sessions, path, folder, tomb, nil), nil, tomb, known, full)
}

// planHashed compares each parsed session that is not forgotten, already
// redacted and given its project, with the stored session of its ID;
// sigs are its turns' indexes and hashes (see turnHashes).
func (ix *indexer) planHashed(ctx context.Context, sessions []harness.Session, sigs map[*harness.Session]turnSigs, made map[*harness.Session][]sessionPart, tomb map[string]bool, known []store.KnownSession, full bool) ([]*sessionPlan, error) {
	byID := map[string]store.KnownSession{}
	for _, ks := range known {
		byID[ks.Id] = ks
	}
	var plans []*sessionPlan
	for i := range sessions {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		sess := &sessions[i]
		if tomb[sess.ID] {
			continue
		}
		st := store.LedgerSpan{Last: math.MinInt}
		ks, ok := byID[sess.ID]
		if ok {
			var err error
			if st, err = ix.s.LedgerTurns(ctx, sess.ID, sigs[sess].index); err != nil {
				return nil, err
			}
		}
		pl := newPlan(sess, sigs[sess], st, full)
		if !ok {
			pl.made = made[sess]
		}
		if ok {
			var err error
			if pl.continues, err = continues(ctx, ix.s, ks, pl, chunk.Turns(*sess), known); err != nil {
				return nil, err
			}
		}
		plans = append(plans, pl)
	}
	return plans, nil
}

// turnSigs are what a plan needs of a session's turns, in chunk.Turns'
// order: their indexes and hashes.
type turnSigs struct {
	index []int
	hash  []string
}

// sigsOf are the turns' indexes and hashes.
func sigsOf(turns []chunk.Turn) turnSigs {
	sig := turnSigs{index: make([]int, len(turns)), hash: make([]string, len(turns))}
	for j, t := range turns {
		sig.index[j], sig.hash[j] = t.Index, t.Hash()
	}
	return sig
}

// newPlan is the plan of a redacted session whose turns' indexes and
// hashes are sig and whose stored turns are st.
func newPlan(sess *harness.Session, sig turnSigs, st store.LedgerSpan, full bool) *sessionPlan {
	pl := &sessionPlan{sess: sess, hashes: sig.hash, stored: st.ByIndex, lastStored: st.Last, continues: true}
	for j, index_ := range sig.index {
		if old, ok := st.ByIndex[index_]; full || !ok || old.Hash != sig.hash[j] {
			pl.pending++
		}
	}
	return pl
}

// reserveTakenIDs reserves the IDs of known sessions that a parsed session
// took without continuing them, marks them displaced (kept, never replaced
// by the session that took their ID), and reports whether it reserved any.
func reserveTakenIDs(plans []*sessionPlan, reserved, displaced map[string]bool) bool {
	added := false
	for _, pl := range plans {
		if id := pl.sess.ID; !pl.continues && !reserved[id] {
			reserved[id] = true
			displaced[id] = true
			added = true
		}
	}
	return added
}

// continues reports whether a parsed session is the known session of its
// ID, as it was, grown or cut: the same header and start; when another
// known session of the file shares them (two launches in one second,
// unreadable headers), the same first question; and every turn both hold
// the same, except where the session was growing (the last stored turn)
// or was cut (the last turn read), where one question must begin the
// other. Aider only appends, so a session that differs anywhere else was
// rewritten: a file written again with the same header times, or a turn cut
// from the middle. Taking its ID would mix old turns into the new session
// (a cut middle turn left its successor twice, once at its old index); the
// old session is kept instead, as a session that left the file is.
func continues(ctx context.Context, s *store.Store, ks store.KnownSession, pl *sessionPlan, turns []chunk.Turn, known []store.KnownSession) (bool, error) {
	// The start as text: it is kept for every start, where nanoseconds are
	// kept only within firstYear and lastYear (and overflowed in stores
	// written before that rule).
	var started sql.NullString
	if pl.sess.HasStart() {
		started = sql.NullString{String: pl.sess.Started.Format(time.RFC3339), Valid: true}
	}
	if ks.Header != storedHeader(pl.sess.Header) || ks.Started != started {
		return false, nil
	}
	first := ""
	if len(turns) > 0 {
		first = turns[0].User
	}
	for _, other := range known {
		if other.Id != ks.Id && other.Header == ks.Header && other.Started == ks.Started && ks.First != first {
			return false, nil
		}
	}
	if len(turns) == 0 {
		return true, nil
	}
	lastStored := max(turns[0].Index, pl.lastStored)
	lastRead := turns[len(turns)-1].Index
	for j, t := range turns {
		old, ok := pl.stored[t.Index]
		if !ok || old.Hash == pl.hashes[j] || old.Hash == t.BareHash() {
			// A turn stored before records had outcomes hashed without
			// its work: read again with it, it is the same turn.
			continue
		}
		if t.Index != lastStored && t.Index != lastRead {
			return false, nil
		}
		user, err := s.TurnUser(ctx, old.Id)
		if err != nil {
			return false, fmt.Errorf("store: reading the ledger: %w", err)
		}
		if !strings.HasPrefix(t.User, user) && !strings.HasPrefix(user, t.User) {
			return false, nil
		}
	}
	return true, nil
}

// rereadAs reports whether a session read before is among the sessions
// read now under another ID: one starting at the same byte whose header
// completes the old one (aider was writing it during the last run). A
// session cut by hand and followed by a new one is not: it stays, gone.
// Sessions without headers (those of JSONL harnesses, which all start at
// their file's first byte) are never re-read as another: a session that
// left such a file stays, gone.
func rereadAs(ks store.KnownSession, parsed []harness.Session) bool {
	for _, sess := range parsed {
		if sess.Offset == ks.Offset && sess.Header != "" && strings.HasPrefix(storedHeader(sess.Header), ks.Header) {
			return true
		}
	}
	return false
}
