package index

import (
	"context"
	"math"
	"slices"
	"strings"

	"github.com/deja-dev/deja/harness"
)

// heldPrompts drops the plans of prompt-only sessions (a prompt of an
// agent's prompt history, harness.Session.PromptOnly) whose prompt the
// store holds already, so that no prompt is stored twice:
//   - a prompt linked to a session (Parent) is held when a user turn of
//     that session holds it, normalized, whether its transcript is still
//     on disk or was deleted after it was indexed, and when that session
//     was forgotten;
//   - a prompt linked to none is held when a turn of another session of
//     the harness, in the prompt's project where the history names one,
//     asks exactly it.
//
// A session the store holds already is its own, and kept. The plans are
// of one window of one history; the sessions are already redacted, as
// the store's texts are. Prompt histories are indexed after every other
// history of a run (promptHistoriesLast), so a transcript read in the
// same run is stored before the prompts it holds are looked up.
func (ix *indexer) heldPrompts(ctx context.Context, harnessName string, plans []*sessionPlan) ([]*sessionPlan, error) {
	type linked struct {
		texts     []string
		forgotten bool
	}
	var sessions map[string]linked
	kept := plans[:0]
	for _, pl := range plans {
		s := pl.sess
		if !s.PromptOnly || pl.lastStored != math.MinInt || len(s.Messages) == 0 {
			kept = append(kept, pl)
			continue
		}
		prompt := harness.NormalizePrompt(s.Messages[0].Text)
		held := false
		if s.Parent != "" {
			l, ok := sessions[s.Parent]
			if !ok {
				texts, forgotten, err := ix.s.LinkedPrompts(ctx, s.Parent)
				if err != nil {
					return nil, err
				}
				l = linked{texts, forgotten}
				if sessions == nil {
					sessions = map[string]linked{}
				}
				sessions[s.Parent] = l
			}
			held = l.forgotten || slices.ContainsFunc(l.texts, func(t string) bool { return strings.Contains(t, prompt) })
		} else {
			var err error
			if held, err = ix.s.HoldsPrompt(ctx, harnessName, s.Project, prompt, s.ID); err != nil {
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
	var prompts []string
	for _, p := range paths {
		if harness.IsPromptHistoryName(p) {
			prompts = append(prompts, p)
		} else {
			out = append(out, p)
		}
	}
	return append(out, prompts...)
}
