package index

import (
	"context"
	"fmt"
	"strings"

	"github.com/deja-dev/deja/embed"
	"github.com/deja-dev/deja/memory/store"
)

// embedNewTurns embeds the texts of a batch of new turns with emb and sets
// each turn's vectors. A turn whose every text the embedder refused keeps
// nil vectors and is returned among the refusals, for the writer to record
// and name in the run's problems; any other failure is returned and
// nothing is set.
func embedNewTurns(ctx context.Context, emb embed.Embedder, batch []*newTurn, texts []string) ([]store.Refusal, error) {
	vecs, refused, err := store.EmbedAll(ctx, emb, texts)
	if err != nil {
		return nil, err
	}
	var refusals []store.Refusal
	at := 0
	for _, t := range batch {
		v, why := store.TurnVectors(vecs[at:at+len(t.texts)], refused, at)
		at += len(t.texts)
		t.vectors = v
		if why != "" {
			refusals = append(refusals, store.Refusal{Session: t.session, Turn: t.turn.Index, Hash: t.hash, Reason: why})
		}
	}
	return refusals, nil
}

// recordRefused stores refusals and names them in the run's problems, one
// line for the lot. In tx when one is given (the ledger writer's, which
// holds the store's only write lock), else in a transaction of its own.
func (ix *indexer) recordRefused(ctx context.Context, in *store.LedgerTx, refusals []store.Refusal) error {
	if len(refusals) == 0 {
		return nil
	}
	identity, revision := ix.emb.Identity(), store.RevisionOf(ix.emb)
	sto := func(lt *store.LedgerTx) error { return lt.PutRefusals(identity, revision, refusals) }
	var err error
	if in != nil {
		err = sto(in)
	} else {
		err = ix.s.WriteLedger(ctx, nil, sto)
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
func refusalLine(refusals []store.Refusal) string {
	const named = 5
	var ids []string
	reasons := map[string]bool{}
	var reason []string
	for i, r := range refusals {
		if i < named {
			ids = append(ids, fmt.Sprintf("%s/%d", r.Session, r.Turn))
		}
		if !reasons[r.Reason] {
			reasons[r.Reason] = true
			reason = append(reason, r.Reason)
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
