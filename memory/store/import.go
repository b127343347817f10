package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/deja-dev/deja/chunk"
	"github.com/deja-dev/deja/embed"
)

// RemoteTurn is a turn another member of the team shared: the turn as its
// origin stored it, who sent it and the subject it came on.
type RemoteTurn struct {
	SharedTurn
	// Origin names the machine that sent the turn; Person who sent it.
	Origin string
	Person string
	// Subject is the session's subject, where its tombstone goes. It
	// names the member who published the session, as the server lets
	// only that member publish there: a session received here takes
	// turns from its own subject alone, the subject it was published on
	// first in the stream.
	Subject string
	// Seq orders versions of a turn: the stream sequence it came with.
	Seq uint64
}

// ImportOptions tunes ImportTurns.
type ImportOptions struct {
	// Embedder embeds the turns on this machine, so a store's vectors all
	// come from its own embedder; nil leaves them to the next 'deja index'.
	Embedder embed.Embedder
	// Budget is the most characters of one chunk's embedded text.
	Budget int
	// Lock tunes how the writer's lock is waited for.
	Lock LockOptions
}

// ImportReport says what ImportTurns did.
type ImportReport struct {
	// Written turns were new or changed.
	Written int
	// Same turns were stored already, Forgotten ones belong to a session
	// forgotten here, Own ones to a session of this machine, come back
	// on the subject it was published on.
	Same, Forgotten, Own int
	// Foreign turns were refused: they name a session that another
	// member published first, or one of this machine that was not
	// published on their subject, and would have added to or replaced
	// its turns. The turns of a session held here that another member
	// turns out to have published earlier in the stream are dropped and
	// counted here too.
	Foreign int
}

// teamPathPrefix begins the path of a session received from a team; no
// history file has such a path, so indexing never touches it.
const TeamPathPrefix = "team:"

// teamPath is the path of a session folded in from a team:
// team:USER@MACHINE, which says whose it is in every place a session's
// path goes (recall's from, the scope's --mine and --from) without a
// join. A machine's name (Store.TeamMachine) never holds an '@'.
func teamPath(person, machine string) string { return TeamPathPrefix + person + "@" + machine }

// localOrigin is the "origin" metadata of this machine's own chunks.
const LocalOrigin = "local"

// originOf is a session's "origin" metadata for its path: "local" for
// this machine's own, "team:USER" for one folded in from a team, so one
// equality filter keeps either.
func OriginOf(path string) string {
	from, ok := strings.CutPrefix(path, TeamPathPrefix)
	if !ok {
		return LocalOrigin
	}
	if i := strings.LastIndexByte(from, '@'); i >= 0 {
		from = from[:i]
	}
	return TeamPathPrefix + from
}

// fromOf is who a session came from, USER@MACHINE, for its path; empty for
// this machine's own.
func FromOf(path string) string {
	from, ok := strings.CutPrefix(path, TeamPathPrefix)
	if !ok {
		return ""
	}
	return from
}

// ImportTurns writes turns received from a team into the store as sessions
// marked with their origin, in one transaction, embedding them with the
// local embedder. A turn of a forgotten session is dropped: the tombstone
// wins over a later publish. A turn adds to or replaces only the turns of
// a session received on its own subject, so a member cannot write into
// another's session or this machine's own. A session belongs to the
// member who published it first in the stream: a turn published earlier
// than every turn held of its session, on another subject, replaces the
// session held (folding projects through separate consumers may receive
// a later copy first). Receiving a turn again changes nothing. What it
// stores is redacted here, whatever the sender did.
func (s *Store) ImportTurns(ctx context.Context, turns []RemoteTurn, opts ImportOptions) (ImportReport, error) {
	// What this store keeps loaded for recall reflects the write.
	defer s.Invalidate()
	var rep ImportReport
	if len(turns) == 0 {
		return rep, nil
	}
	if err := s.teamTables(ctx); err != nil {
		return rep, err
	}
	turns = redactRemote(turns)
	// The first publish of a session owns it, so turns go in stream order.
	sort.SliceStable(turns, func(i, j int) bool { return turns[i].Seq < turns[j].Seq })
	lock, err := AcquireLock(ctx, s.dir, opts.Lock)
	if err != nil {
		return rep, err
	}
	defer lock.Unlock()
	emb := opts.Embedder
	if emb != nil {
		if err := s.RegisterEmbedder(ctx, emb); err != nil {
			return rep, err
		}
	}
	if opts.Budget <= 0 {
		opts.Budget = 2000
	}
	err = s.write(ctx, func(tx *sql.Tx) error {
		var keep []RemoteTurn
		// A session new here belongs to the subject of its first turn in
		// the batch.
		first := map[string]string{}
		for _, t := range turns {
			verdict, err := importVerdict(ctx, tx, t)
			if err != nil {
				return err
			}
			if subject, ok := first[t.Session]; ok && (verdict == "write" || verdict == "evict") && subject != t.Subject {
				verdict = "foreign"
			}
			switch verdict {
			case "forgotten":
				rep.Forgotten++
			case "own":
				rep.Own++
			case "foreign":
				rep.Foreign++
			case "same":
				rep.Same++
			default:
				if verdict == "evict" {
					n, err := evict(ctx, tx, t.Session)
					if err != nil {
						return err
					}
					rep.Foreign += n
				}
				if _, ok := first[t.Session]; !ok {
					first[t.Session] = t.Subject
				}
				keep = append(keep, t)
			}
		}
		if len(keep) == 0 {
			return nil
		}
		var texts []string
		ct := make([]chunk.Turn, len(keep))
		for i, t := range keep {
			ct[i] = chunk.Turn{Index: t.Turn, Line: t.Line, User: t.User, Assistant: t.Assist, Files: t.Files, Commands: t.Commands}
			texts = append(texts, chunk.Texts(ct[i], opts.Budget)...)
		}
		var vecs [][]float32
		var refused map[int]string
		if emb != nil {
			// A failed embedding leaves the turns lacking vectors; the next
			// 'deja index' fills them in, as it does for its own turns.
			var err error
			if vecs, refused, err = EmbedAll(ctx, emb, texts); err != nil {
				vecs = nil
			}
		}
		lacking := vecs == nil && len(texts) > 0
		at := 0
		var st struct{ vec, delTurn, insTurn, insWork, received *sql.Stmt }
		for _, p := range []struct {
			stmt  **sql.Stmt
			query string
		}{
			{&st.vec, insertVector},
			{&st.delTurn, `DELETE FROM turn_rows WHERE session_id = ? AND turn = ?`},
			{&st.insTurn, insertTurn},
			{&st.insWork, insertWork},
			{&st.received, `INSERT OR REPLACE INTO team_received(session_id, turn, seq) VALUES (?, ?, ?)`},
		} {
			stmt, err := tx.PrepareContext(ctx, p.query)
			if err != nil {
				return err
			}
			defer stmt.Close()
			*p.stmt = stmt
		}
		keywords := newKeywordBatch(ctx, tx)
		for i, t := range keep {
			if err := putRemoteSession(ctx, tx, t); err != nil {
				return err
			}
			// A batch may hold two versions of a turn.
			if err := keywords.flushFor(t.Session, t.Turn); err != nil {
				return err
			}
			if _, err := st.delTurn.ExecContext(ctx, t.Session, t.Turn); err != nil {
				return err
			}
			var tm any
			if t.TimeNS != 0 {
				tm = t.TimeNS
			}
			files, commands := strings.Join(t.Files, "\n"), strings.Join(t.Commands, "\n")
			packed := PackTurn(t.User, t.Assist)
			res, err := st.insTurn.ExecContext(ctx,
				t.Session, t.Turn, t.Line, t.Hash, packed.User, packed.assistant, files, commands, t.Actions, tm, packed.Chars)
			if err != nil {
				return err
			}
			id, err := res.LastInsertId()
			if err != nil {
				return err
			}
			if t.Work != nil {
				if err := PutWork(ctx, st.insWork, id, *t.Work); err != nil {
					return err
				}
			}
			if err := keywords.add(t.Session, t.Turn, keywordRow{id, t.User, t.Assist, files, commands}); err != nil {
				return err
			}
			n := len(chunk.Texts(ct[i], opts.Budget))
			if vecs != nil {
				// A turn whose every chunk the embedder refused stays
				// without vectors, as an indexed one does.
				v, _ := TurnVectors(vecs[at:at+n], refused, at)
				at += n
				if v == nil && n > 0 {
					lacking = true
				} else if err := putVectors(ctx, vectorStmts{st.vec, s.floatsOf(tx)}, emb.Identity(), id, v); err != nil {
					return err
				}
			}
			if _, err := st.received.ExecContext(ctx, t.Session, t.Turn, t.Seq); err != nil {
				return err
			}
			rep.Written++
		}
		if err := keywords.flush(); err != nil {
			return err
		}
		if emb == nil || lacking {
			_, err := tx.ExecContext(ctx, `UPDATE embedders SET complete = 0`)
			return err
		}
		_, err := tx.ExecContext(ctx, `UPDATE embedders SET complete = 0 WHERE identity != ?`, emb.Identity())
		return err
	})
	return rep, err
}

// importVerdict decides what a received turn is to this store: a turn of
// a session forgotten here, of this machine's own session (echoed back by
// the stream), of a session another subject owns here, of a session
// received here that another subject published later than this turn (to
// evict), one stored already, or one to write.
func importVerdict(ctx context.Context, tx *sql.Tx, t RemoteTurn) (string, error) {
	var one int
	err := tx.QueryRowContext(ctx, `
		SELECT 1 FROM tombstones WHERE session_id = ? UNION ALL SELECT 1 FROM team_tombstones WHERE subject = ?`,
		t.Session, t.Subject).Scan(&one)
	if err == nil {
		return "forgotten", nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return "", err
	}
	var origin, subject sql.NullString
	var exists int
	err = tx.QueryRowContext(ctx, `
		SELECT 1, ts.origin, ts.subject FROM sessions s LEFT JOIN team_sessions ts ON ts.session_id = s.id
		WHERE s.id = ?`, t.Session).Scan(&exists, &origin, &subject)
	if errors.Is(err, sql.ErrNoRows) {
		return "write", nil
	}
	if err != nil {
		return "", err
	}
	switch {
	case subject.String != t.Subject && origin.String != "" && t.Seq != 0:
		var held sql.NullInt64
		err := tx.QueryRowContext(ctx, `SELECT min(seq) FROM team_received WHERE session_id = ?`, t.Session).Scan(&held)
		if err != nil {
			return "", err
		}
		if held.Valid && t.Seq < uint64(held.Int64) {
			return "evict", nil
		}
		return "foreign", nil
	case subject.String != t.Subject:
		return "foreign", nil
	case origin.String == "":
		return "own", nil
	}
	var seq uint64
	err = tx.QueryRowContext(ctx, `SELECT seq FROM team_received WHERE session_id = ? AND turn = ?`, t.Session, t.Turn).Scan(&seq)
	if err == nil && seq >= t.Seq {
		return "same", nil
	}
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return "", err
	}
	var hash string
	err = tx.QueryRowContext(ctx, `SELECT hash FROM turns WHERE session_id = ? AND turn = ?`, t.Session, t.Turn).Scan(&hash)
	if err == nil && hash == t.Hash {
		return "same", nil
	}
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return "", err
	}
	return "write", nil
}

// evict removes a received session that another member published
// earlier: its turns, their vectors and keyword rows go by cascade and
// trigger, as with Forget, and with them what was received of it. It
// reports how many turns went.
func evict(ctx context.Context, tx *sql.Tx, session string) (int, error) {
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM turns WHERE session_id = ?`, session).Scan(&n); err != nil {
		return 0, err
	}
	for _, q := range []string{
		`DELETE FROM sessions WHERE id = ?`,
		`DELETE FROM team_received WHERE session_id = ?`,
		`DELETE FROM team_sessions WHERE session_id = ?`,
	} {
		if _, err := tx.ExecContext(ctx, q, session); err != nil {
			return 0, err
		}
	}
	return n, nil
}

func putRemoteSession(ctx context.Context, tx *sql.Tx, t RemoteTurn) error {
	var started, ns any
	if t.Started != "" {
		started = t.Started
		if tm, err := time.Parse(time.RFC3339, t.Started); err == nil && tm.Year() >= firstYear && tm.Year() <= lastYear {
			ns = tm.UnixNano()
		}
	}
	harnessName := t.Harness
	if harnessName == "" {
		harnessName = "aider"
	}
	_, err := tx.ExecContext(ctx, `
		INSERT INTO sessions(id, path, project, ordinal, started, started_ns, header, offset, end_offset, present,
			harness, parent, subagent, marker)
		VALUES (?, ?, ?, 0, ?, ?, '', 0, 0, 1, ?, ?, ?, '')
		ON CONFLICT(id) DO UPDATE SET path = excluded.path, project = excluded.project, started = excluded.started,
			started_ns = excluded.started_ns, harness = excluded.harness, parent = excluded.parent, subagent = excluded.subagent`,
		t.Session, teamPath(t.Person, t.Origin), t.Project, started, ns, harnessName, t.Parent, t.Subagent)
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `
		INSERT INTO team_sessions(session_id, subject, origin, user) VALUES (?, ?, ?, ?)
		ON CONFLICT(session_id) DO UPDATE SET subject = excluded.subject, origin = excluded.origin, user = excluded.user`,
		t.Session, t.Subject, t.Origin, t.Person)
	return err
}

// ImportTombstone forgets a session because the member who published it
// forgot it. subject is where the tombstone came, which names that member
// (the server lets only them publish there): a session received on that
// subject goes as with Forget; this machine's own sessions and those
// received on another subject stay, and ImportTombstone reports false.
// A session not held here is remembered by its subject, so a turn
// published there later is dropped.
func (s *Store) ImportTombstone(ctx context.Context, session, subject string, lock LockOptions) (bool, error) {
	// What this store keeps loaded for recall reflects the write.
	defer s.Invalidate()
	if err := s.teamTables(ctx); err != nil {
		return false, err
	}
	var held bool
	var owner, origin sql.NullString
	err := s.db.QueryRowContext(ctx, `
		SELECT EXISTS (SELECT 1 FROM sessions WHERE id = ?),
			(SELECT subject FROM team_sessions WHERE session_id = ?), (SELECT origin FROM team_sessions WHERE session_id = ?)`,
		session, session, session).Scan(&held, &owner, &origin)
	if err != nil {
		return false, fmt.Errorf("store: reading session %s: %w", session, err)
	}
	if held && (owner.String != subject || origin.String == "") || !held && owner.Valid && owner.String != subject {
		return false, nil
	}
	if held {
		if err := s.Forget(ctx, []string{session}, lock); err != nil && !errors.Is(err, ErrNotScrubbed) {
			return false, err
		}
	}
	l, err := AcquireLock(ctx, s.dir, lock)
	if err != nil {
		return false, err
	}
	defer l.Unlock()
	return true, s.write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO team_tombstones(subject, forgotten) VALUES (?, ?)`, subject, time.Now().Unix()); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `UPDATE team_sessions SET tombstone_sent = 1 WHERE session_id = ?`, session)
		return err
	})
}

// Origin says who a session came from: empty for this machine's own
// sessions, else the origin machine and user a team sent it with.
func (s *Store) Origin(ctx context.Context, session string) (origin, user string, err error) {
	if err := s.teamTables(ctx); err != nil {
		return "", "", err
	}
	err = s.db.QueryRowContext(ctx, `SELECT origin, user FROM team_sessions WHERE session_id = ?`, session).Scan(&origin, &user)
	if errors.Is(err, sql.ErrNoRows) {
		return "", "", nil
	}
	return origin, user, err
}
