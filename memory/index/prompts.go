package index

import (
	"context"
	"math"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/memory/store"
)

// heldPrompts drops the plans of prompt-only sessions (a prompt of an
// agent's prompt history, harness.Session.PromptOnly) whose prompt the
// store holds already (store.HoldsPrompt: in the session the history
// links it to, whether that session's transcript is on disk or was
// deleted after it was indexed, or else in another session of the
// harness), so that no prompt is stored twice. A session the store holds
// already is its own, and kept. The sessions are redacted, as the store's
// texts are. Prompt histories are indexed after every other history of a
// run (promptHistoriesLast), so a transcript read in the same run is
// stored before the prompts it holds are looked up; one read in a later
// run drops the prompt's session (dropPrompts).
func (ix *indexer) heldPrompts(ctx context.Context, harnessName string, plans []*sessionPlan) ([]*sessionPlan, error) {
	kept := plans[:0]
	for _, pl := range plans {
		s := pl.sess
		held := false
		if s.PromptOnly && pl.lastStored == math.MinInt && len(s.Messages) > 0 {
			var err error
			if held, err = ix.s.HoldsPrompt(ctx, harnessName, s.ID, s.Parent, s.Project, s.Messages[0].Text); err != nil {
				return nil, err
			}
		}
		if !held {
			kept = append(kept, pl)
		}
	}
	clear(plans[len(kept):])
	return kept, nil
}

// promptHistoriesLast moves the agents' prompt histories to the end of
// paths, the rest in their order: their prompts are looked up among the
// sessions stored before them (see heldPrompts).
func promptHistoriesLast(paths []string) []string {
	out := make([]string, 0, len(paths))
	for _, last := range []bool{false, true} {
		for _, p := range paths {
			if harness.IsPromptHistoryName(p) == last {
				out = append(out, p)
			}
		}
	}
	return out
}

// storedPrompts are the prompt-only sessions the store holds, loaded at
// the first session a run writes: by the session they are linked to, and
// those linked to none by harness and prompt.
type storedPrompts struct {
	linked, unlinked map[string][]store.StoredPrompt
}

func (sp *storedPrompts) add(p store.StoredPrompt) {
	if p.Parent != "" {
		sp.linked[p.Parent] = append(sp.linked[p.Parent], p)
		return
	}
	k := p.Harness + "\x00" + p.Prompt
	sp.unlinked[k] = append(sp.unlinked[k], p)
}

// storedPrompts loads the run's storedPrompts once. A write that fails
// drops them (see forgetStoredPrompts), as its drops did not commit.
func (w *ledgerWriter) storedPrompts() (*storedPrompts, error) {
	if w.ix.prompts != nil {
		return w.ix.prompts, nil
	}
	all, err := w.lt.StoredPrompts()
	if err != nil {
		return nil, err
	}
	sp := &storedPrompts{linked: map[string][]store.StoredPrompt{}, unlinked: map[string][]store.StoredPrompt{}}
	for _, p := range all {
		sp.add(p)
	}
	w.ix.prompts = sp
	return sp, nil
}

// dropPrompts deletes the stored prompt-only sessions that a session
// being written holds, so that a prompt is not stored twice when its
// transcript comes after its prompt history (Claude Code writes
// history.jsonl as the prompt is sent; a transcript restored from a
// backup): with batch, those linked to none whose prompt a turn of batch
// asks exactly, in the session's project (or in none); without, at the
// session's end, those linked to it whose prompt one of its user turns
// holds (store.HoldsPrompt's rules). Unlike a forget, no tombstone is
// left: the session holds the prompt, and a prompt history read again
// finds it there (heldPrompts).
func (w *ledgerWriter) dropPrompts(pl *sessionPlan, batch []*newTurn) error {
	if pl.sess.PromptOnly {
		if batch == nil && w.ix.prompts != nil && len(pl.sess.Messages) > 0 {
			w.ix.prompts.add(store.StoredPrompt{ID: pl.sess.ID, Harness: w.harness, Project: store.SessionProject(*pl.sess),
				Parent: pl.sess.Parent, Prompt: harness.NormalizePrompt(pl.sess.Messages[0].Text)})
		}
		return nil
	}
	sp, err := w.storedPrompts()
	if err != nil {
		return err
	}
	drop := func(list []store.StoredPrompt, held func(store.StoredPrompt) (bool, error)) ([]store.StoredPrompt, error) {
		kept := list[:0]
		for _, p := range list {
			ok, err := p.Harness == w.harness, error(nil)
			if ok {
				ok, err = held(p)
			}
			if err == nil && ok {
				err = w.lt.DeleteSession(p.ID)
			}
			if err != nil {
				return nil, err
			}
			if !ok {
				kept = append(kept, p)
			}
		}
		return kept, nil
	}
	if batch == nil {
		list, ok := sp.linked[pl.sess.ID]
		if !ok {
			return nil
		}
		sp.linked[pl.sess.ID], err = drop(list, func(p store.StoredPrompt) (bool, error) { return w.lt.SessionHolds(pl.sess.ID, p.Prompt) })
		return err
	}
	if len(sp.unlinked) == 0 {
		return nil
	}
	for _, t := range batch {
		k := w.harness + "\x00" + harness.NormalizePrompt(t.turn.User)
		if list, ok := sp.unlinked[k]; ok {
			if sp.unlinked[k], err = drop(list, func(p store.StoredPrompt) (bool, error) {
				return p.ID != t.session && (p.Project == "" || p.Project == t.project), nil
			}); err != nil {
				return err
			}
		}
	}
	return nil
}
