package store

import (
	"context"
	"database/sql"
	"sort"
	"strings"
)

// keywordBatch gives the turns a transaction writes their keyword rows
// (turns_fts) in one statement per batch instead of one per turn. FTS5
// writes the terms it holds out as a new segment at every statement that
// could roll part of itself back, so the per-turn trigger of schema 4 made
// a segment of each turn and the merges that follow. Measured on
// bench/perf's 100k turns: 0.68–0.70 s of CPU per 1,000 turns with the
// trigger, 0.25 s with one statement per file (and the statements
// prepared once per run).
//
// The batch keeps the texts it was given and binds them to the statement:
// reading them back from the turns view inflated each text just deflated.
//
// A turn deleted while it is still in the batch is given its row first
// (flushFor), so the delete trigger (turns_ad) always removes a row that
// exists.
type keywordBatch struct {
	ctx context.Context
	tx  *sql.Tx
	// rows are the batch's turns: their IDs and texts.
	rows []keywordRow
	// queued holds the batch's turns, by session and turn index.
	queued map[turnKey]bool
}

// keywordRow is what the keyword index reads of a turn.
type keywordRow struct {
	id                               int64
	user, assistant, files, commands string
}

type turnKey struct {
	session string
	turn    int
}

// keywordBatchTurns bounds a batch, so its texts follow the batch and not
// the file; FTS5 writes a segment per megabyte of terms anyway. Its rows'
// five values each stay under SQLite's limit of 32,766 bound values.
const keywordBatchTurns = 4096

func newKeywordBatch(ctx context.Context, tx *sql.Tx) *keywordBatch {
	return &keywordBatch{ctx: ctx, tx: tx, queued: map[turnKey]bool{}}
}

// add queues the keyword row of a turn just inserted as row id.
func (b *keywordBatch) add(session string, turn int, row keywordRow) error {
	b.rows = append(b.rows, row)
	b.queued[turnKey{session, turn}] = true
	if len(b.rows) >= keywordBatchTurns {
		return b.flush()
	}
	return nil
}

// flushFor flushes the batch when it holds the session's turn, which is
// about to be deleted.
func (b *keywordBatch) flushFor(session string, turn int) error {
	if b.queued[turnKey{session, turn}] {
		return b.flush()
	}
	return nil
}

// flush inserts the keyword rows of the queued turns, in rowid order:
// FTS5 also writes a segment whenever a rowid is lower than the last one
// it took.
func (b *keywordBatch) flush() error {
	if len(b.rows) == 0 {
		return nil
	}
	sort.Slice(b.rows, func(i, j int) bool { return b.rows[i].id < b.rows[j].id })
	var q strings.Builder
	q.WriteString(`INSERT INTO turns_fts(rowid, user, assistant, files, commands) VALUES `)
	args := make([]any, 0, 5*len(b.rows))
	for i, r := range b.rows {
		if i > 0 {
			q.WriteByte(',')
		}
		q.WriteString("(?,?,?,?,?)")
		args = append(args, r.id, r.user, r.assistant, r.files, r.commands)
	}
	if _, err := b.tx.ExecContext(b.ctx, q.String(), args...); err != nil {
		return err
	}
	clear(b.rows)
	b.rows = b.rows[:0]
	clear(b.queued)
	return nil
}

// compactKeywords merges the keyword index into one segment after a run
// that wrote at least a quarter of the store's turns (a first index, a
// --full one): each batch left a segment, FTS5's automatic merges keep
// several per level, and a query seeks every segment for each of its
// terms. Measured by a one-off timer, not kept, on bench/perf's corpus
// store at 100k turns (16 segments before): the merge takes 1.3 s, and
// warm hybrid recall over the eval's queries, three times each, went
// from a mean of 54 to 60 ms (p99 278 to 338 ms) to 50 to 54 ms (p99 244
// to 262 ms). Best effort: the index answers the same either way, and a
// smaller run leaves the merging to FTS5.
func (s *Store) CompactKeywords(ctx context.Context, newTurns int) {
	if newTurns == 0 {
		return
	}
	var total int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM turn_rows`).Scan(&total); err != nil || newTurns*4 < total {
		return
	}
	// The merge reads and writes the whole index, outside a transaction:
	// on a connection with the writer's page cache (writerPragmas), not a
	// one-shot store's.
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return
	}
	defer conn.Close()
	for _, p := range writerPragmas {
		if _, err := conn.ExecContext(ctx, p); err != nil {
			return
		}
	}
	_, _ = conn.ExecContext(ctx, `INSERT INTO turns_fts(turns_fts) VALUES ('optimize')`)
}
