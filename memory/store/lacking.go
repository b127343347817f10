package store

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

// embedAll embeds texts in batches of embedBatch. Texts the embedder
// refused even cut shorter have nil vectors and their reason in refused,
// by index; any other failure is the error.
func EmbedAll(ctx context.Context, emb embed.Embedder, texts []string) ([][]float32, map[int]string, error) {
	out := make([][]float32, 0, len(texts))
	refused := map[int]string{}
	for len(texts) > 0 {
		n := min(len(texts), EmbedBatch)
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
func TurnVectors(vecs [][]float32, refused map[int]string, at int) (out [][]float32, why string) {
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
	Id      int64
	project string
	Session string
	Hash    string
	Turn    chunk.Turn
	Texts   []string
}

// lackingWhere selects turns t without the embedder's vectors that the
// embedder has not refused: a refused turn is tried again only when the
// model or deja changes (retryRefused), not on every run. Both
// placeholders are the embedder's identity.
const lackingWhere = `NOT EXISTS (SELECT 1 FROM vectors v WHERE v.turn_id = t.id AND v.embedder = ?)
	AND NOT EXISTS (SELECT 1 FROM unembedded u WHERE u.embedder = ? AND u.session_id = t.session_id AND u.turn = t.turn AND u.hash = t.hash)`

func (s *Store) LackingPage(ctx context.Context, identity string, after int64) ([]*storedTurn, error) {
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
		if err := rows.Scan(&t.Id, &t.project, &t.Session, &t.Hash, &t.Turn.Index, &t.Turn.User, &t.Turn.Assistant, &files, &commands); err != nil {
			return nil, err
		}
		t.Turn.Files, t.Turn.Commands = SplitLines(files), SplitLines(commands)
		out = append(out, &t)
	}
	return out, rows.Err()
}

func (s *Store) CountLacking(ctx context.Context, identity string) (int, error) {
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
func (s *Store) Lacking(ctx context.Context, identity string) (int, error) {
	var complete bool
	err := s.db.QueryRowContext(ctx, `SELECT complete FROM embedders WHERE identity = ?`, identity).Scan(&complete)
	if errors.Is(err, sql.ErrNoRows) {
		return s.CountLacking(ctx, "\x00none")
	}
	if err != nil || complete {
		return 0, err
	}
	return s.CountLacking(ctx, identity)
}

func SplitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}
