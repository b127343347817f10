package store

import (
	"context"
	"fmt"

	"github.com/deja-dev/deja/embed"
)

// unembeddedSchema records the turns an embedder refused even cut shorter
// (a text longer than the model's context, say), so that later runs do not
// send them again: a row holds while the turn keeps its hash and the
// embedder its revision (embed.Revisioned: the model and deja's way of
// fitting texts to it). Rows of turns that changed or left match no turn
// and count for nothing.
const unembeddedSchema = `
CREATE TABLE IF NOT EXISTS unembedded (
	embedder   TEXT NOT NULL,
	session_id TEXT NOT NULL,
	turn       INTEGER NOT NULL,
	hash       TEXT NOT NULL,
	revision   TEXT NOT NULL,
	reason     TEXT NOT NULL,
	PRIMARY KEY (embedder, session_id, turn)
) WITHOUT ROWID;
`

// refusal is a turn the embedder refused, and why.
type Refusal struct {
	Session string
	Turn    int
	Hash    string
	Reason  string
}

// Unembedded is a turn left without a vector because the embedder refused
// every text of it, even cut shorter.
type Unembedded struct {
	SessionID string
	Turn      int
	Reason    string
}

// revisionOf is the embedder's revision, "" for one that has none.
func RevisionOf(emb embed.Embedder) string {
	if r, ok := emb.(embed.Revisioned); ok {
		return r.Revision()
	}
	return ""
}

// retryRefused forgets the embedder's refusals made under another revision
// (another model behind the name, another deja) and marks the embedder
// incomplete when it did, so this run's fill tries those turns again.
func (s *Store) RetryRefused(ctx context.Context, emb embed.Embedder) error {
	if _, err := s.db.ExecContext(ctx, unembeddedSchema); err != nil {
		return fmt.Errorf("store: %w", diskHint(err))
	}
	res, err := s.db.ExecContext(ctx, `DELETE FROM unembedded WHERE embedder = ? AND revision != ?`, emb.Identity(), RevisionOf(emb))
	if err != nil {
		return fmt.Errorf("store: %w", diskHint(err))
	}
	if n, _ := res.RowsAffected(); n > 0 {
		_, err = s.db.ExecContext(ctx, `UPDATE embedders SET complete = 0 WHERE identity = ?`, emb.Identity())
		return diskHint(err)
	}
	return nil
}

// Unembedded lists the turns that the embedder refused, in the order they
// were stored; they are the turns 'deja status' counts as having no vector.
func (s *Store) Unembedded(ctx context.Context, identity string) ([]Unembedded, error) {
	rows, err := s.db.QueryContext(ctx, `
		SELECT u.session_id, u.turn, u.reason FROM unembedded u
		JOIN turns t ON t.session_id = u.session_id AND t.turn = u.turn AND t.hash = u.hash
		WHERE u.embedder = ? ORDER BY t.id`, identity)
	if isNoTable(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("store: reading refused turns: %w", err)
	}
	defer rows.Close()
	var out []Unembedded
	for rows.Next() {
		var u Unembedded
		if err := rows.Scan(&u.SessionID, &u.Turn, &u.Reason); err != nil {
			return nil, err
		}
		out = append(out, u)
	}
	return out, rows.Err()
}
