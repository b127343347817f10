package index

import (
	"context"
	"math"
	"strings"

	"github.com/deja-dev/deja/harness"
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

// dropPrompts deletes, once a session is written, the stored
// prompt-only sessions linked to it whose prompt one of its user turns
// holds (store.HoldsPrompt's rules), so that a prompt is not stored twice
// when its transcript comes after its prompt history was read (a
// transcript restored from a backup, one written after deja read the
// history). Unlike a forget, no tombstone is left: the session holds the
// prompt, and a prompt history read again finds it there (heldPrompts).
// The links are loaded at the first session a run writes, and the run's
// own prompts added as they are written. A prompt linked to no session
// (cursor-agent's and Copilot CLI's, Claude Code's older lines) is not
// dropped: every turn written would be looked up for it.
func (w *ledgerWriter) dropPrompts(pl *sessionPlan) error {
	s := pl.sess
	if w.ix.prompts == nil {
		if s.PromptOnly {
			return nil
		}
		links, err := w.lt.PromptLinks()
		if err != nil {
			return err
		}
		w.ix.prompts = map[string][]string{}
		for _, l := range links {
			id, parent, _ := strings.Cut(l, " ")
			w.ix.prompts[parent] = append(w.ix.prompts[parent], id)
		}
	}
	if s.PromptOnly {
		if s.Parent != "" {
			w.ix.prompts[s.Parent] = append(w.ix.prompts[s.Parent], s.ID)
		}
		return nil
	}
	for _, id := range w.ix.prompts[s.ID] {
		if !harness.IsPromptID(w.harness, id) {
			continue
		}
		held, err := w.lt.HoldsPromptOf(s.ID, id)
		if err == nil && held {
			err = w.lt.DeleteSession(id)
		}
		if err != nil {
			return err
		}
	}
	return nil
}
