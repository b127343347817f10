package index

import (
	"context"
	"math"

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
// stored before the prompts it holds are looked up.
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
