package memory

import (
	"context"
	"database/sql"
	"strconv"
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
// A turn deleted while it is still in the batch is given its row first
// (flushFor), so the delete trigger (turns_ad) always removes a row that
// exists.
type keywordBatch struct {
	ctx context.Context
	ins *sql.Stmt
	ids []int64
	// queued holds the batch's turns, by session and turn index.
	queued map[turnKey]bool
}

type turnKey struct {
	session string
	turn    int
}

// keywordBatchTurns bounds a batch, so its IDs follow the batch and not
// the file; FTS5 writes a segment per megabyte of terms anyway.
const keywordBatchTurns = 4096

// insertKeywords gives the listed turns their keyword rows, in rowid
// order: FTS5 also writes a segment whenever a rowid is lower than the
// last one it took.
const insertKeywords = `INSERT INTO turns_fts(rowid, user, assistant, files, commands)
	SELECT id, user, assistant, files, commands FROM turns
	WHERE id IN (SELECT value FROM json_each(?)) ORDER BY id`

func newKeywordBatch(ctx context.Context, ins *sql.Stmt) *keywordBatch {
	return &keywordBatch{ctx: ctx, ins: ins, queued: map[turnKey]bool{}}
}

// add queues a turn just inserted as row id.
func (b *keywordBatch) add(session string, turn int, id int64) error {
	b.ids = append(b.ids, id)
	b.queued[turnKey{session, turn}] = true
	if len(b.ids) >= keywordBatchTurns {
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

// flush inserts the keyword rows of the queued turns.
func (b *keywordBatch) flush() error {
	if len(b.ids) == 0 {
		return nil
	}
	list := make([]byte, 0, 8*len(b.ids)+2)
	list = append(list, '[')
	for i, id := range b.ids {
		if i > 0 {
			list = append(list, ',')
		}
		list = strconv.AppendInt(list, id, 10)
	}
	list = append(list, ']')
	if _, err := b.ins.ExecContext(b.ctx, string(list)); err != nil {
		return err
	}
	b.ids = b.ids[:0]
	clear(b.queued)
	return nil
}
