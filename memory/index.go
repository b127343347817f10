package memory

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/deja-dev/deja/chunk"
	"github.com/deja-dev/deja/embed"
	"github.com/deja-dev/deja/harness"
)

// IndexOptions say what Index reads and how it embeds.
type IndexOptions struct {
	// Paths are history files, absolute and resolved (aider.ResolvePath).
	Paths []string
	// Harnesses read the histories: a file the store knows goes to the
	// harness that read it before, a new one to the first harness that
	// claims it (harness.Registry.Detect). Nil means aider alone.
	Harnesses harness.Registry
	// Embedder embeds new turns; nil stores them without vectors, to be
	// filled by a later run.
	Embedder embed.Embedder
	// Budget is the most characters of one chunk (chunk.Texts).
	Budget int
	// Full re-reads the files of Paths whole and re-embeds their turns;
	// other histories in the store are left as they are.
	Full bool
	// Location is the zone of session header times; nil means time.Local.
	Location *time.Location
	// Lock tunes the wait for another writer.
	Lock LockOptions
	// Progress, when set, is told how far indexing got.
	Progress func(Progress)

	// readFile replaces os.ReadFile when set, so a test can delete a file
	// between its Stat and its read.
	readFile func(string) ([]byte, error)
}

// Progress is how far an Index run got in its current phase.
type Progress struct {
	// Phase is "reading" (Done of Total files) or "embedding" (Done of
	// Total turns).
	Phase       string
	Done, Total int
	// File is the history being read, in the reading phase.
	File string
}

// IndexReport sums up an Index run.
type IndexReport struct {
	// Files is how many histories were looked at, Read how many had new
	// bytes and were parsed, Missing how many known ones are gone (their
	// sessions stay).
	Files, Read, Missing int
	// Sessions is how many sessions had new or changed turns.
	Sessions int
	// NewTurns is how many turns were written; Embedded how many turns got
	// vectors, old turns that lacked them included.
	NewTurns, Embedded int
	// Skipped is how many files could not be indexed; Problems says why,
	// one line each, with what to do.
	Skipped  int
	Problems []string
	// Lacking is how many turns still lack vectors of the embedder.
	Lacking int
	// Redacted is how many secrets were removed from what was read.
	Redacted int
	Took     time.Duration
}

// fileState is a files row: what the last index knew of a history.
type fileState struct {
	size, mtime int64
	lastOffset  int64
	lastOrdinal int
	fingerprint []byte
	known       bool
	// harness is the name of the harness that read the file.
	harness string
}

// Index brings the store up to date with the given histories: only bytes
// after the start of each file's last known session are parsed, only new or
// changed turns are embedded, and each file's changes are committed in one
// transaction. It holds the store's writer lock while it runs.
func (s *Store) Index(ctx context.Context, opts IndexOptions) (IndexReport, error) {
	start := time.Now()
	var rep IndexReport
	lock, err := AcquireLock(ctx, s.dir, opts.Lock)
	if err != nil {
		return rep, err
	}
	defer lock.Unlock()

	emb := opts.Embedder
	if emb != nil {
		if err := s.registerEmbedder(ctx, emb); err != nil {
			return rep, err
		}
	}
	if opts.Full {
		if err := s.resetForFull(ctx, emb, opts.Paths); err != nil {
			return rep, err
		}
	}
	ix := &indexer{s: s, opts: opts, emb: emb, rep: &rep}
	for i, path := range opts.Paths {
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		if opts.Progress != nil {
			opts.Progress(Progress{Phase: "reading", Done: i, Total: len(opts.Paths), File: path})
		}
		rep.Files++
		if err := ix.file(ctx, path); err != nil {
			if ctx.Err() != nil {
				return rep, ctx.Err()
			}
			rep.Skipped++
			rep.Problems = append(rep.Problems, err.Error())
		}
	}
	if opts.Progress != nil && len(opts.Paths) > 0 {
		opts.Progress(Progress{Phase: "reading", Done: len(opts.Paths), Total: len(opts.Paths)})
	}
	if ix.emb != nil {
		if err := ix.fill(ctx); err != nil {
			if ctx.Err() != nil {
				return rep, ctx.Err()
			}
			rep.Problems = append(rep.Problems, err.Error())
		}
	}
	if emb != nil {
		n, err := s.lacking(ctx, emb.Identity())
		if err != nil {
			return rep, err
		}
		rep.Lacking = n
	}
	rep.Took = time.Since(start)
	return rep, nil
}

// KnownFiles lists the histories the store has indexed, deleted ones too.
func (s *Store) KnownFiles(ctx context.Context) ([]string, error) {
	paths, err := queryStrings(ctx, s.db, `SELECT path FROM files ORDER BY path`)
	if err != nil {
		return nil, fmt.Errorf("store: listing files: %w", err)
	}
	return paths, nil
}

// registerEmbedder records the embedder's dimension, and refuses one whose
// vectors changed length under the same identity: they could not be
// compared with the stored ones.
func (s *Store) registerEmbedder(ctx context.Context, emb embed.Embedder) error {
	var dim int
	err := s.db.QueryRowContext(ctx, `SELECT dimension FROM embedders WHERE identity = ?`, emb.Identity()).Scan(&dim)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		// complete = 0: every turn already stored lacks this embedder's
		// vectors, so the fill step runs.
		_, err = s.db.ExecContext(ctx, `INSERT INTO embedders(identity, dimension, complete) VALUES (?, ?, 0)`, emb.Identity(), emb.Dimension())
		return diskHint(err)
	case err != nil:
		return fmt.Errorf("store: reading embedders: %w", err)
	case dim != emb.Dimension():
		return fmt.Errorf("store: %s gave %d-d vectors before and %d-d now: run 'deja index --full' to re-embed", emb.Identity(), dim, emb.Dimension())
	}
	return nil
}

// resetForFull forgets what was read of the given histories and drops the
// embedder's vectors of their sessions (gone ones included), so this run
// re-reads and re-embeds them. Other histories keep their files rows, or a
// plain 'deja index' would no longer know a history only ever named on the
// command line. Turns stay until their file is re-read, so recall keeps
// working meanwhile; a run killed half-way is completed by the next one.
func (s *Store) resetForFull(ctx context.Context, emb embed.Embedder, paths []string) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		for _, path := range paths {
			if _, err := tx.ExecContext(ctx, `DELETE FROM files WHERE path = ?`, path); err != nil {
				return err
			}
			if emb == nil {
				continue
			}
			if _, err := tx.ExecContext(ctx, `
				DELETE FROM vectors WHERE embedder = ? AND turn_id IN (
					SELECT turns.id FROM turns JOIN sessions ON sessions.id = turns.session_id WHERE sessions.path = ?)`,
				emb.Identity(), path); err != nil {
				return err
			}
		}
		if emb != nil {
			if _, err := tx.ExecContext(ctx, `UPDATE embedders SET complete = 0 WHERE identity = ?`, emb.Identity()); err != nil {
				return err
			}
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO turns_fts(turns_fts) VALUES ('rebuild')`)
		return err
	})
}

// write runs fn in one immediate transaction.
func (s *Store) write(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store: %w", diskHint(err))
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return fmt.Errorf("store: %w", diskHint(err))
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: %w", diskHint(err))
	}
	return nil
}

type indexer struct {
	s    *Store
	opts IndexOptions
	emb  embed.Embedder
	rep  *IndexReport
}

// newTurn is a turn to write, with its vectors once embedded.
type newTurn struct {
	session string
	// project is the session's project, which its vectors are filed under.
	project string
	turn    chunk.Turn
	hash    string
	texts   []string
	vectors [][]float32
}

func (ix *indexer) file(ctx context.Context, path string) error {
	st, err := ix.s.fileState(ctx, path)
	if err != nil {
		return err
	}
	fi, err := os.Stat(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) && st.known {
			ix.rep.Missing++
			return nil
		}
		return fmt.Errorf("%s: %v, skipped", path, unwrapPath(err))
	}
	reader, err := ix.reader(path, st, fi)
	if err != nil || reader == nil {
		return err
	}
	// A store read whole is read every run: its writes land in a WAL or in
	// files below it, so its own size and time do not show them, and its
	// sessions' markers keep the re-read cheap.
	if whole, ok := reader.(harness.WholeReader); ok {
		return ix.whole(ctx, path, whole, fi)
	}
	if fi.IsDir() {
		return fmt.Errorf("%s: is a directory, skipped (name the history files in it, or the directory on the command line)", path)
	}
	mtime := fi.ModTime().UnixNano()
	if st.known && fi.Size() == st.size && mtime == st.mtime {
		return nil
	}
	fr, ok := reader.(harness.FileReader)
	if !ok {
		return fmt.Errorf("%s: harness %s reads no files, skipped", path, reader.Name())
	}
	readFile := os.ReadFile
	if ix.opts.readFile != nil {
		readFile = ix.opts.readFile
	}
	data, err := readFile(path)
	if err != nil {
		// Deleted since the Stat: the same as deleted before it.
		if errors.Is(err, os.ErrNotExist) {
			if st.known {
				ix.rep.Missing++
				return nil
			}
			return fmt.Errorf("%s: %v, skipped", path, unwrapPath(err))
		}
		return fmt.Errorf("%s: %v, skipped (check its permissions)", path, unwrapPath(err))
	}
	if dec, ok := fr.(harness.Decoder); ok {
		if data, err = dec.Decode(path, data); err != nil {
			return fmt.Errorf("%s: %v, skipped", path, err)
		}
	}
	if err := fr.Sniff(path, data); err != nil {
		return fmt.Errorf("%s: %v, skipped", path, err)
	}
	ix.rep.Read++

	// Re-read from the start of the last known session when the bytes
	// before it are the ones already read; any other change (the file
	// shrank, was rewritten or replaced) re-reads it whole.
	incremental := st.known && st.harness == fr.Name() && int64(len(data)) >= st.size && st.lastOffset <= int64(len(data)) &&
		bytes.Equal(fingerprint(data[:st.lastOffset]), st.fingerprint)
	from, ordinal := int64(0), 1
	if incremental {
		from, ordinal = st.lastOffset, st.lastOrdinal
	}
	known, err := ix.s.fileSessions(ctx, path)
	if err != nil {
		return err
	}
	reserved := map[string]bool{}
	for _, ks := range known {
		// Sessions before the re-read part keep their IDs, and so do
		// sessions that left the file: new sessions must not take them.
		if !ks.present || (incremental && ks.offset < from) {
			reserved[ks.id] = true
		}
	}
	parse := func() *harness.History {
		return fr.Parse(data[from:], harness.ParseOptions{
			Path:         path,
			Offset:       from,
			FirstOrdinal: ordinal,
			Reserved:     func(id string) bool { return reserved[id] },
			Location:     ix.opts.Location,
		})
	}
	hist := parse()
	// An ID that depends on position (a same-second -2, an ordinal for an
	// unreadable header) slides to a later session when an earlier one is
	// cut out by hand. On a whole re-read such an ID is reserved, and the
	// file parsed again, until every taken ID names the session it named
	// before; each pass reserves one more known ID, so this ends.
	for !incremental && reserveTakenIDs(hist.Sessions, known, reserved) {
		hist = parse()
	}

	tomb, err := ix.s.tombstones(ctx, path)
	if err != nil {
		return err
	}
	var sessions []harness.Session
	for _, sess := range hist.Sessions {
		if !tomb[sess.ID] {
			sess = withProject(sess, path)
			ix.rep.Redacted += redactSession(&sess)
			sessions = append(sessions, sess)
		}
	}
	pending, changedSessions, err := ix.changedTurns(ctx, sessions)
	if err != nil {
		return err
	}
	ix.embedTurns(ctx, pending)

	next := fileState{size: fi.Size(), mtime: mtime, lastOffset: from, lastOrdinal: ordinal, harness: fr.Name()}
	if n := len(hist.Sessions); n > 0 {
		next.lastOffset, next.lastOrdinal = hist.Sessions[n-1].Offset, hist.Sessions[n-1].Ordinal
	}
	next.fingerprint = fingerprint(data[:next.lastOffset])
	if after, err := os.Stat(path); err == nil && after.ModTime().UnixNano() != mtime {
		// Written while we read: keep a time that makes the next run look again.
		next.mtime = 0
	}

	parsed := map[string]bool{}
	for _, sess := range hist.Sessions {
		parsed[sess.ID] = true
	}
	err = ix.s.write(ctx, func(tx *sql.Tx) error {
		for _, sess := range sessions {
			if err := upsertSession(ctx, tx, path, fr.Name(), sess); err != nil {
				return err
			}
		}
		for _, ks := range known {
			if parsed[ks.id] || !ks.present {
				continue
			}
			if incremental && ks.offset < from {
				continue
			}
			if incremental && rereadAs(ks, hist.Sessions) {
				// Read from bytes read again now: the re-read session
				// replaces it (a header that was half written, say).
				if _, err := tx.ExecContext(ctx, `DELETE FROM sessions WHERE id = ?`, ks.id); err != nil {
					return err
				}
				continue
			}
			// It left the file: keep it, as a deleted transcript is kept.
			if _, err := tx.ExecContext(ctx, `UPDATE sessions SET present = 0 WHERE id = ?`, ks.id); err != nil {
				return err
			}
		}
		for _, sess := range sessions {
			if err := pruneTurns(ctx, tx, sess.ID, chunk.Turns(sess)); err != nil {
				return err
			}
		}
		if err := ix.writeTurns(ctx, tx, pending); err != nil {
			return err
		}
		if err := touchTurns(ctx, tx, sessions); err != nil {
			return err
		}
		return putFileState(ctx, tx, path, next)
	})
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	ix.rep.Sessions += changedSessions
	ix.rep.NewTurns += len(pending)
	return nil
}

// changedTurns returns the turns of sessions that are new or differ from
// the stored ones, with their texts to embed.
func (ix *indexer) changedTurns(ctx context.Context, sessions []harness.Session) ([]*newTurn, int, error) {
	var out []*newTurn
	changed := 0
	for _, sess := range sessions {
		have, err := ix.s.turnHashes(ctx, sess.ID)
		if err != nil {
			return nil, 0, err
		}
		n := len(out)
		for _, t := range chunk.Turns(sess) {
			h := t.Hash()
			if old, ok := have[t.Index]; ok && old == h && !ix.opts.Full {
				continue
			}
			out = append(out, &newTurn{session: sess.ID, project: sessionProject(sess), turn: t, hash: h, texts: chunk.Texts(t, ix.opts.Budget)})
		}
		if len(out) > n {
			changed++
		}
	}
	return out, changed, nil
}

// embedTurns embeds the turns' texts in batches. On failure the turns are
// written without vectors, the problem is reported once and the rest of
// the run stores turns only; the next run fills the gap.
func (ix *indexer) embedTurns(ctx context.Context, turns []*newTurn) {
	if ix.emb == nil || len(turns) == 0 {
		return
	}
	total := len(turns)
	done := 0
	for len(turns) > 0 {
		var batch []*newTurn
		var texts []string
		for len(turns) > 0 && (len(texts) == 0 || len(texts)+len(turns[0].texts) <= embedBatch) {
			batch = append(batch, turns[0])
			texts = append(texts, turns[0].texts...)
			turns = turns[1:]
		}
		vecs, err := ix.emb.Embed(ctx, embed.Document, texts)
		if err == nil && len(vecs) != len(texts) {
			err = fmt.Errorf("%d vectors for %d texts", len(vecs), len(texts))
		}
		if err != nil {
			ix.rep.Problems = append(ix.rep.Problems, fmt.Sprintf("embedding with %s failed: %v; turns are stored without vectors and the next 'deja index' embeds them", ix.emb.Identity(), err))
			for _, t := range batch {
				t.vectors = nil
			}
			ix.emb = nil
			return
		}
		for _, t := range batch {
			t.vectors, vecs = vecs[:len(t.texts)], vecs[len(t.texts):]
		}
		done += len(batch)
		ix.rep.Embedded += len(batch)
		if ix.opts.Progress != nil && total > embedBatch {
			ix.opts.Progress(Progress{Phase: "embedding", Done: done, Total: total})
		}
	}
}

// embedBatch is how many texts go to the embedder at once.
const embedBatch = 256

// writeTurns replaces the stored turns with the new ones and stores their
// vectors. Turns written without vectors mark the embedder incomplete.
func (ix *indexer) writeTurns(ctx context.Context, tx *sql.Tx, turns []*newTurn) error {
	if len(turns) == 0 {
		return nil
	}
	del, err := tx.PrepareContext(ctx, `DELETE FROM turns WHERE session_id = ? AND turn = ?`)
	if err != nil {
		return err
	}
	defer del.Close()
	ins, err := tx.PrepareContext(ctx, `INSERT INTO turns(session_id, turn, line, hash, user, assistant, files, commands, actions, time_ns) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	defer ins.Close()
	vec, err := tx.PrepareContext(ctx, insertVector)
	if err != nil {
		return err
	}
	defer vec.Close()
	lacking := false
	for _, t := range turns {
		if _, err := del.ExecContext(ctx, t.session, t.turn.Index); err != nil {
			return err
		}
		res, err := ins.ExecContext(ctx, t.session, t.turn.Index, t.turn.Line, t.hash, t.turn.User, t.turn.Assistant,
			strings.Join(t.turn.Files, "\n"), strings.Join(t.turn.Commands, "\n"), turnActions(t.turn), turnTime(t.turn))
		if err != nil {
			return err
		}
		id, err := res.LastInsertId()
		if err != nil {
			return err
		}
		if ix.opts.Embedder == nil {
			continue
		}
		if t.vectors == nil && len(t.texts) > 0 {
			lacking = true
			continue
		}
		if err := putVectors(ctx, vec, ix.opts.Embedder.Identity(), t.project, t.session, t.turn.Index, id, t.vectors); err != nil {
			return err
		}
	}
	// Other embedders' vectors are now incomplete, and so is this one's
	// when embedding failed.
	if lacking || ix.opts.Embedder == nil {
		_, err = tx.ExecContext(ctx, `UPDATE embedders SET complete = 0`)
		return err
	}
	_, err = tx.ExecContext(ctx, `UPDATE embedders SET complete = 0 WHERE identity != ?`, ix.opts.Embedder.Identity())
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

// pruneTurns deletes stored turns of a session that its re-read no longer
// has among the turns it read. Turns after the last one read stay: aider
// only appends, so a session with fewer turns than before was cut by hand
// (a user trimming a big history), and its cut turns stay recallable as a
// session that left the file does.
func pruneTurns(ctx context.Context, tx *sql.Tx, session string, turns []chunk.Turn) error {
	if len(turns) == 0 {
		return nil
	}
	last := turns[0].Index
	args := make([]any, 0, len(turns)+2)
	args = append(args, session, 0)
	marks := make([]string, 0, len(turns))
	for _, t := range turns {
		last = max(last, t.Index)
		args = append(args, t.Index)
		marks = append(marks, "?")
	}
	args[1] = last
	_, err := tx.ExecContext(ctx, `DELETE FROM turns WHERE session_id = ? AND turn < ? AND turn NOT IN (`+strings.Join(marks, ",")+`)`, args...)
	return err
}

func upsertSession(ctx context.Context, tx *sql.Tx, path, harnessName string, s harness.Session) error {
	var started any
	var startedNS any
	if s.HasStart() {
		started = s.Started.Format(time.RFC3339)
		startedNS = s.Started.UnixNano()
	}
	_, err := tx.ExecContext(ctx, `
		INSERT INTO sessions(id, path, project, ordinal, started, started_ns, header, offset, end_offset, present,
			harness, parent, subagent, marker)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?)
		ON CONFLICT(id) DO UPDATE SET path = excluded.path, project = excluded.project,
			ordinal = excluded.ordinal, started = excluded.started, started_ns = excluded.started_ns,
			header = excluded.header, offset = excluded.offset, end_offset = excluded.end_offset, present = 1,
			harness = excluded.harness, parent = excluded.parent, subagent = excluded.subagent, marker = excluded.marker`,
		s.ID, path, sessionProject(s), s.Ordinal, started, startedNS, s.Header, s.Offset, s.End,
		harnessName, s.Parent, s.Subagent, s.Marker)
	return err
}

func putFileState(ctx context.Context, tx *sql.Tx, path string, st fileState) error {
	_, err := tx.ExecContext(ctx, `
		INSERT OR REPLACE INTO files(path, project, size, mtime_ns, last_offset, last_ordinal, fingerprint, indexed_at, harness)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		path, filepath.Dir(path), st.size, st.mtime, st.lastOffset, st.lastOrdinal, st.fingerprint, time.Now().UnixNano(), st.harness)
	return err
}

func (s *Store) fileState(ctx context.Context, path string) (fileState, error) {
	var st fileState
	err := s.db.QueryRowContext(ctx, `SELECT size, mtime_ns, last_offset, last_ordinal, fingerprint, harness FROM files WHERE path = ?`, path).
		Scan(&st.size, &st.mtime, &st.lastOffset, &st.lastOrdinal, &st.fingerprint, &st.harness)
	if errors.Is(err, sql.ErrNoRows) {
		return st, nil
	}
	if err != nil {
		return st, fmt.Errorf("store: reading the ledger: %w", err)
	}
	st.known = true
	return st, nil
}

type knownSession struct {
	id      string
	offset  int64
	header  string
	started sql.NullInt64
	present bool
	// first is the user text of the session's first stored turn.
	first string
}

// reserveTakenIDs reserves the IDs of known sessions that a parsed session
// took without being that session, and reports whether it reserved any.
func reserveTakenIDs(parsed []harness.Session, known []knownSession, reserved map[string]bool) bool {
	byID := map[string]knownSession{}
	for _, ks := range known {
		byID[ks.id] = ks
	}
	added := false
	for _, sess := range parsed {
		ks, ok := byID[sess.ID]
		if ok && !reserved[sess.ID] && !sameSession(ks, sess, known) {
			reserved[sess.ID] = true
			added = true
		}
	}
	return added
}

// sameSession reports whether a parsed session is the known one: the same
// header and start, and, when another known session of the file shares
// them (two launches in one second, unreadable headers), the same first
// question. Aider writes a question whole when it is sent, so a session
// cut or grown after its first turn still matches.
func sameSession(ks knownSession, sess harness.Session, known []knownSession) bool {
	var started sql.NullInt64
	if sess.HasStart() {
		started = sql.NullInt64{Int64: sess.Started.UnixNano(), Valid: true}
	}
	if ks.header != sess.Header || ks.started != started {
		return false
	}
	for _, other := range known {
		if other.id != ks.id && other.header == ks.header && other.started == ks.started {
			return ks.first == firstQuestion(sess)
		}
	}
	return true
}

// firstQuestion is the user text of a session's first turn as stored:
// with its secrets redacted.
func firstQuestion(sess harness.Session) string {
	sess.Messages = append([]harness.Message(nil), sess.Messages...)
	sess.Records = append([]harness.Record(nil), sess.Records...)
	redactSession(&sess)
	turns := chunk.Turns(sess)
	if len(turns) == 0 {
		return ""
	}
	return turns[0].User
}

// rereadAs reports whether a session read before is among the sessions
// read now under another ID: one starting at the same byte whose header
// completes the old one (aider was writing it during the last run). A
// session cut by hand and followed by a new one is not: it stays, gone.
// Sessions without headers (those of JSONL harnesses, which all start at
// their file's first byte) are never re-read as another: a session that
// left such a file stays, gone.
func rereadAs(ks knownSession, parsed []harness.Session) bool {
	for _, sess := range parsed {
		if sess.Offset == ks.offset && sess.Header != "" && strings.HasPrefix(sess.Header, ks.header) {
			return true
		}
	}
	return false
}

func (s *Store) fileSessions(ctx context.Context, path string) ([]knownSession, error) {
	rows, err := s.db.QueryContext(ctx, `
		SELECT id, offset, header, started_ns, present,
			COALESCE((SELECT user FROM turns WHERE session_id = sessions.id ORDER BY turn LIMIT 1), '')
		FROM sessions WHERE path = ?`, path)
	if err != nil {
		return nil, fmt.Errorf("store: reading the ledger: %w", err)
	}
	defer rows.Close()
	var out []knownSession
	for rows.Next() {
		var k knownSession
		if err := rows.Scan(&k.id, &k.offset, &k.header, &k.started, &k.present, &k.first); err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	return out, rows.Err()
}

func (s *Store) tombstones(ctx context.Context, path string) (map[string]bool, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT session_id FROM tombstones WHERE path = ?`, path)
	if err != nil {
		return nil, fmt.Errorf("store: reading tombstones: %w", err)
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out[id] = true
	}
	return out, rows.Err()
}

func (s *Store) turnHashes(ctx context.Context, session string) (map[int]string, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT turn, hash FROM turns WHERE session_id = ?`, session)
	if err != nil {
		return nil, fmt.Errorf("store: reading the ledger: %w", err)
	}
	defer rows.Close()
	out := map[int]string{}
	for rows.Next() {
		var t int
		var h string
		if err := rows.Scan(&t, &h); err != nil {
			return nil, err
		}
		out[t] = h
	}
	return out, rows.Err()
}

func fingerprint(b []byte) []byte {
	sum := sha256.Sum256(b)
	return sum[:]
}

// unwrapPath drops the path an *os.PathError repeats.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
