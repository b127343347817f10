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
	if err := ix.s.retryRefused(ctx, ix.emb); err != nil {
		return err
	}
	complete, err := ix.s.embedderComplete(ctx, identity)
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
		vecs, refused, err := embedAll(ctx, ix.emb, texts)
		if err != nil {
			return fmt.Errorf("embedding with %s failed: %v; %d turns lack vectors and the next 'deja index' embeds them", identity, err, total-done)
		}
		var refusals []refusal
		var filled []filledTurn
		at := 0
		for _, t := range page {
			v, why := turnVectors(vecs[at:at+len(t.texts)], refused, at)
			at += len(t.texts)
			if why != "" {
				refusals = append(refusals, refusal{session: t.session, turn: t.turn.Index, hash: t.hash, reason: why})
				continue
			}
			filled = append(filled, filledTurn{id: t.id, vectors: v})
		}
		err = ix.s.writeLedger(ctx, nil, func(lt *ledgerTx) error { return lt.putFilled(identity, filled) })
		if err == nil {
			err = ix.recordRefused(ctx, nil, refusals)
		}
		if err != nil {
			return err
		}
		done += len(page)
		ix.rep.Embedded += len(page)
		ix.progress(Progress{Phase: "filling", Done: done, Total: total})
	}
	return ix.s.markComplete(ctx, identity)
}

// embedAll embeds texts in batches of embedBatch. Texts the embedder
// refused even cut shorter have nil vectors and their reason in refused,
// by index; any other failure is the error.
func embedAll(ctx context.Context, emb embed.Embedder, texts []string) ([][]float32, map[int]string, error) {
	out := make([][]float32, 0, len(texts))
	refused := map[int]string{}
	for len(texts) > 0 {
		n := min(len(texts), embedBatch)
		vecs, err := emb.Embed(ctx, embed.Document, texts[:n])
		var rerr *embed.RefusedError
		if errors.As(err, &rerr) && len(vecs) == n {
			for _, r := range rerr.Texts {
				refused[len(out)+r.Index] = r.Reason
			}
			err = nil
		}
		if err != nil {
			return nil, nil, err
		}
		if len(vecs) != n {
			return nil, nil, fmt.Errorf("%d vectors for %d texts", len(vecs), n)
		}
		out = append(out, vecs...)
		texts = texts[n:]
	}
	return out, refused, nil
}

// turnVectors returns one turn's chunk vectors, vecs, the first of which
// is text number at of the embedded texts. A chunk the embedder refused
// keeps an empty vector, matching nothing, when other chunks of the turn
// have theirs; when it refused every chunk, the turn has no vector and
// why says so.
func turnVectors(vecs [][]float32, refused map[int]string, at int) (out [][]float32, why string) {
	if len(vecs) == 0 {
		return vecs, ""
	}
	out = make([][]float32, len(vecs))
	kept := 0
	for i, v := range vecs {
		if r, ok := refused[at+i]; ok {
			why = r
			out[i] = []float32{}
			continue
		}
		out[i] = v
		kept++
	}
	if kept > 0 {
		return out, ""
	}
	return nil, why
}

type storedTurn struct {
	id      int64
	project string
	session string
	hash    string
	turn    chunk.Turn
	texts   []string
}

// lackingWhere selects turns t without the embedder's vectors that the
// embedder has not refused: a refused turn is tried again only when the
// model or deja changes (retryRefused), not on every run. Both
// placeholders are the embedder's identity.
const lackingWhere = `NOT EXISTS (SELECT 1 FROM vectors v WHERE v.turn_id = t.id AND v.embedder = ?)
	AND NOT EXISTS (SELECT 1 FROM unembedded u WHERE u.embedder = ? AND u.session_id = t.session_id AND u.turn = t.turn AND u.hash = t.hash)`

func (s *Store) lackingPage(ctx context.Context, identity string, after int64) ([]*storedTurn, error) {
	rows, err := s.db.QueryContext(ctx, `
		SELECT t.id, s.project, t.session_id, t.hash, t.turn, t.user, t.assistant, t.files, t.commands
		FROM turns t JOIN sessions s ON s.id = t.session_id
		WHERE t.id > ? AND `+lackingWhere+` ORDER BY t.id LIMIT ?`, after, identity, identity, fillPage)
	if err != nil {
		return nil, fmt.Errorf("store: reading turns lacking vectors: %w", err)
	}
	defer rows.Close()
	var out []*storedTurn
	for rows.Next() {
		var t storedTurn
		var files, commands string
		if err := rows.Scan(&t.id, &t.project, &t.session, &t.hash, &t.turn.Index, &t.turn.User, &t.turn.Assistant, &files, &commands); err != nil {
			return nil, err
		}
		t.turn.Files, t.turn.Commands = splitLines(files), splitLines(commands)
		out = append(out, &t)
	}
	return out, rows.Err()
}

func (s *Store) countLacking(ctx context.Context, identity string) (int, error) {
	var n int
	err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM turns t WHERE `+lackingWhere, identity, identity).Scan(&n)
	if isNoTable(err) {
		// A store made before refusals were recorded, not written since.
		err = s.db.QueryRowContext(ctx, `SELECT count(*) FROM turns t WHERE NOT EXISTS (SELECT 1 FROM vectors v WHERE v.turn_id = t.id AND v.embedder = ?)`, identity).Scan(&n)
	}
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
