package index

import (
	"context"
	"fmt"

	"github.com/deja-dev/deja/chunk"
	"github.com/deja-dev/deja/memory/store"
)

// fill embeds every stored turn that lacks the embedder's vectors: turns
// written while embedding failed, turns of sessions that left their file
// after a --full, or a whole store indexed first with another embedder.
// Each page is its own transaction, so a killed run keeps what it did.
func (ix *indexer) fill(ctx context.Context) error {
	identity := ix.emb.Identity()
	if err := ix.s.RetryRefused(ctx, ix.emb); err != nil {
		return err
	}
	complete, err := ix.s.EmbedderComplete(ctx, identity)
	if err != nil || complete {
		return err
	}
	total, err := ix.s.CountLacking(ctx, identity)
	if err != nil {
		return err
	}
	done := 0
	after := int64(0)
	for {
		page, err := ix.s.LackingPage(ctx, identity, after)
		if err != nil {
			return err
		}
		if len(page) == 0 {
			break
		}
		after = page[len(page)-1].Id
		var texts []string
		for _, t := range page {
			t.Texts = chunk.Texts(t.Turn, ix.opts.Budget)
			texts = append(texts, t.Texts...)
		}
		vecs, refused, err := store.EmbedAll(ctx, ix.emb, texts)
		if err != nil {
			return fmt.Errorf("embedding with %s failed: %v; %d turns lack vectors and the next 'deja index' embeds them", identity, err, total-done)
		}
		var refusals []store.Refusal
		var filled []store.FilledTurn
		at := 0
		for _, t := range page {
			v, why := store.TurnVectors(vecs[at:at+len(t.Texts)], refused, at)
			at += len(t.Texts)
			if why != "" {
				refusals = append(refusals, store.Refusal{Session: t.Session, Turn: t.Turn.Index, Hash: t.Hash, Reason: why})
				continue
			}
			filled = append(filled, store.FilledTurn{Id: t.Id, Vectors: v})
		}
		err = ix.s.WriteLedger(ctx, nil, func(lt *store.LedgerTx) error { return lt.PutFilled(identity, filled) })
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
	return ix.s.MarkComplete(ctx, identity)
}
