package memory

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/deja-dev/deja/chunk"
	"github.com/deja-dev/deja/embed"
)

// fillPage is how many turns lacking vectors are read, embedded and
// committed at a time.
const fillPage = 512

// fill embeds every stored turn that lacks the embedder's vectors: turns
// written while embedding failed, turns of sessions that left their file
// after a --full, or a whole store indexed first with another embedder.
// Each page is its own transaction, so a killed run keeps what it did.
func (ix *indexer) fill(ctx context.Context) error {
	identity := ix.emb.Identity()
	var complete bool
	err := ix.s.db.QueryRowContext(ctx, `SELECT complete FROM embedders WHERE identity = ?`, identity).Scan(&complete)
	if err != nil || complete {
		return err
	}
	total, err := ix.s.countLacking(ctx, identity)
	if err != nil {
		return err
	}
	done := 0
	after := int64(0)
	for {
		page, err := ix.s.lackingPage(ctx, identity, after)
		if err != nil {
			return err
		}
		if len(page) == 0 {
			break
		}
		after = page[len(page)-1].id
		var texts []string
		for _, t := range page {
			t.texts = chunk.Texts(t.turn, ix.opts.Budget)
			texts = append(texts, t.texts...)
		}
		vecs, err := embedAll(ctx, ix.emb, texts)
		if err != nil {
			return fmt.Errorf("embedding with %s failed: %v; %d turns lack vectors and the next 'deja index' embeds them", identity, err, total-done)
		}
		err = ix.s.write(ctx, func(tx *sql.Tx) error {
			stmt, err := tx.PrepareContext(ctx, insertVector)
			if err != nil {
				return err
			}
			defer stmt.Close()
			for _, t := range page {
				v := vecs[:len(t.texts)]
				vecs = vecs[len(t.texts):]
				if err := putVectors(ctx, stmt, identity, t.project, t.session, t.turn.Index, t.id, v); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
		done += len(page)
		ix.rep.Embedded += len(page)
		if ix.opts.Progress != nil {
			ix.opts.Progress(Progress{Phase: "embedding", Done: done, Total: total})
		}
	}
	_, err = ix.s.db.ExecContext(ctx, `UPDATE embedders SET complete = 1 WHERE identity = ?`, identity)
	return diskHint(err)
}

// embedAll embeds texts in batches of embedBatch.
func embedAll(ctx context.Context, emb embed.Embedder, texts []string) ([][]float32, error) {
	out := make([][]float32, 0, len(texts))
	for len(texts) > 0 {
		n := min(len(texts), embedBatch)
		vecs, err := emb.Embed(ctx, embed.Document, texts[:n])
		if err != nil {
			return nil, err
		}
		if len(vecs) != n {
			return nil, fmt.Errorf("%d vectors for %d texts", len(vecs), n)
		}
		out = append(out, vecs...)
		texts = texts[n:]
	}
	return out, nil
}

type storedTurn struct {
	id      int64
	project string
	session string
	turn    chunk.Turn
	texts   []string
}

const lackingWhere = `NOT EXISTS (SELECT 1 FROM vectors v WHERE v.turn_id = t.id AND v.embedder = ?)`

func (s *Store) lackingPage(ctx context.Context, identity string, after int64) ([]*storedTurn, error) {
	rows, err := s.db.QueryContext(ctx, `
		SELECT t.id, s.project, t.session_id, t.turn, t.user, t.assistant, t.files, t.commands
		FROM turns t JOIN sessions s ON s.id = t.session_id
		WHERE t.id > ? AND `+lackingWhere+` ORDER BY t.id LIMIT ?`, after, identity, fillPage)
	if err != nil {
		return nil, fmt.Errorf("store: reading turns lacking vectors: %w", err)
	}
	defer rows.Close()
	var out []*storedTurn
	for rows.Next() {
		var t storedTurn
		var files, commands string
		if err := rows.Scan(&t.id, &t.project, &t.session, &t.turn.Index, &t.turn.User, &t.turn.Assistant, &files, &commands); err != nil {
			return nil, err
		}
		t.turn.Files, t.turn.Commands = splitLines(files), splitLines(commands)
		out = append(out, &t)
	}
	return out, rows.Err()
}

func (s *Store) countLacking(ctx context.Context, identity string) (int, error) {
	var n int
	err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM turns t WHERE `+lackingWhere, identity).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("store: counting turns lacking vectors: %w", err)
	}
	return n, nil
}

// lacking is how many turns lack the embedder's vectors; it counts only
// when the embedder is marked incomplete, so an up-to-date store answers
// without a scan.
func (s *Store) lacking(ctx context.Context, identity string) (int, error) {
	var complete bool
	err := s.db.QueryRowContext(ctx, `SELECT complete FROM embedders WHERE identity = ?`, identity).Scan(&complete)
	if errors.Is(err, sql.ErrNoRows) {
		return s.countLacking(ctx, "\x00none")
	}
	if err != nil || complete {
		return 0, err
	}
	return s.countLacking(ctx, identity)
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}
