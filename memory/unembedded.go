package memory

import (
	"context"
	"fmt"
	"strings"

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
type refusal struct {
	session string
	turn    int
	hash    string
	reason  string
}

// Unembedded is a turn left without a vector because the embedder refused
// every text of it, even cut shorter.
type Unembedded struct {
	SessionID string
	Turn      int
	Reason    string
}

// revisionOf is the embedder's revision, "" for one that has none.
func revisionOf(emb embed.Embedder) string {
	if r, ok := emb.(embed.Revisioned); ok {
		return r.Revision()
	}
	return ""
}

// embedNewTurns embeds the texts of a batch of new turns with emb and sets
// each turn's vectors. A turn whose every text the embedder refused keeps
// nil vectors and is returned among the refusals, for the writer to record
// and name in the run's problems; any other failure is returned and
// nothing is set.
func embedNewTurns(ctx context.Context, emb embed.Embedder, batch []*newTurn, texts []string) ([]refusal, error) {
	vecs, refused, err := embedAll(ctx, emb, texts)
	if err != nil {
		return nil, err
	}
	var refusals []refusal
	at := 0
	for _, t := range batch {
		v, why := turnVectors(vecs[at:at+len(t.texts)], refused, at)
		at += len(t.texts)
		t.vectors = v
		if why != "" {
			refusals = append(refusals, refusal{session: t.session, turn: t.turn.Index, hash: t.hash, reason: why})
		}
	}
	return refusals, nil
}

// recordRefused stores refusals and names them in the run's problems, one
// line for the lot. In tx when one is given (the ledger writer's, which
// holds the store's only write lock), else in a transaction of its own.
func (ix *indexer) recordRefused(ctx context.Context, in *ledgerTx, refusals []refusal) error {
	if len(refusals) == 0 {
		return nil
	}
	identity, revision := ix.emb.Identity(), revisionOf(ix.emb)
	store := func(lt *ledgerTx) error { return lt.putRefusals(identity, revision, refusals) }
	var err error
	if in != nil {
		err = store(in)
	} else {
		err = ix.s.writeLedger(ctx, nil, store)
	}
	if err != nil {
		return err
	}
	ix.rep.Problems = append(ix.rep.Problems, refusalLine(refusals))
	// The caller counts the whole batch as embedded.
	ix.rep.Embedded -= len(refusals)
	return nil
}

// refusalLine sums refusals up for the user:
// "1 turn has no vector: aider-…/3, longer than the model's context even when cut".
func refusalLine(refusals []refusal) string {
	const named = 5
	var ids []string
	reasons := map[string]bool{}
	var reason []string
	for i, r := range refusals {
		if i < named {
			ids = append(ids, fmt.Sprintf("%s/%d", r.session, r.turn))
		}
		if !reasons[r.reason] {
			reasons[r.reason] = true
			reason = append(reason, r.reason)
		}
	}
	list := strings.Join(ids, ", ")
	if len(refusals) > named {
		list += fmt.Sprintf(" and %d more", len(refusals)-named)
	}
	if len(refusals) == 1 {
		return fmt.Sprintf("1 turn has no vector: %s, %s (keyword recall still finds it)", list, reason[0])
	}
	return fmt.Sprintf("%d turns have no vector: %s, %s (keyword recall still finds them)", len(refusals), list, strings.Join(reason, "; "))
}

// retryRefused forgets the embedder's refusals made under another revision
// (another model behind the name, another deja) and marks the embedder
// incomplete when it did, so this run's fill tries those turns again.
func (s *Store) retryRefused(ctx context.Context, emb embed.Embedder) error {
	if _, err := s.db.ExecContext(ctx, unembeddedSchema); err != nil {
		return fmt.Errorf("store: %w", diskHint(err))
	}
	res, err := s.db.ExecContext(ctx, `DELETE FROM unembedded WHERE embedder = ? AND revision != ?`, emb.Identity(), revisionOf(emb))
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
