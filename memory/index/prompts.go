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

// dropPrompts deletes, once a session is written, the stored
// prompt-only sessions whose prompt one of its user turns holds
// (store.HoldsPrompt's rules), so that a prompt is not stored twice when
// its transcript comes after its prompt history was read (a transcript
// restored from a backup, one written after deja read the history):
//   - linked to the session: a user turn of it holds the prompt;
//   - linked to none (cursor-agent's and Copilot CLI's, Claude Code's
//     older lines): a user turn of it asks exactly the prompt, the
//     session of the prompt's harness and, when the prompt has one, of
//     its project.
//
// Unlike a forget, no tombstone is left: the session holds the prompt,
// and a prompt history read again finds it there (heldPrompts). The
// stored prompts are loaded at the first session a run writes, and the
// run's own prompts added as they are written.
func (w *ledgerWriter) dropPrompts(pl *sessionPlan) error {
	s := pl.sess
	if w.ix.prompts == nil {
		if s.PromptOnly {
			return nil
		}
		stored, err := w.lt.StoredPrompts()
		if err != nil {
			return err
		}
		w.ix.prompts = newPromptSet()
		for _, p := range stored {
			w.ix.prompts.add(p)
		}
	}
	if s.PromptOnly {
		if len(s.Messages) > 0 {
			w.ix.prompts.add(store.StoredPrompt{ID: s.ID, Parent: s.Parent, Harness: w.harness, Project: s.Project, Text: harness.NormalizePrompt(s.Messages[0].Text)})
		}
		return nil
	}
	var drop []string
	for _, id := range w.ix.prompts.linked[s.ID] {
		if !harness.IsPromptID(w.harness, id) {
			continue
		}
		held, err := w.lt.HoldsPromptOf(s.ID, id)
		if err != nil {
			return err
		}
		if held {
			drop = append(drop, id)
		}
	}
	if w.ix.prompts.unlinked[w.harness] != nil {
		users, err := w.lt.UserTexts(s.ID)
		if err != nil {
			return err
		}
		for _, u := range users {
			drop = append(drop, w.ix.prompts.asked(w.harness, s.Project, harness.NormalizePrompt(u))...)
		}
	}
	for _, id := range drop {
		if err := w.lt.DeleteSession(id); err != nil {
			return err
		}
	}
	return nil
}

// promptSet is the prompt-only sessions a store holds, as dropPrompts
// looks them up: the IDs of those linked to a session by that session,
// the others by their harness and prompt (those whose prompt still holds
// a placeholder for a lost paste by their harness alone).
type promptSet struct {
	linked   map[string][]string
	unlinked map[string]map[string][]store.StoredPrompt
	pasted   map[string][]store.StoredPrompt
}

func newPromptSet() *promptSet {
	return &promptSet{linked: map[string][]string{}, unlinked: map[string]map[string][]store.StoredPrompt{}, pasted: map[string][]store.StoredPrompt{}}
}

func (ps *promptSet) add(p store.StoredPrompt) {
	switch {
	case p.Parent != "":
		ps.linked[p.Parent] = append(ps.linked[p.Parent], p.ID)
	default:
		if ps.unlinked[p.Harness] == nil {
			ps.unlinked[p.Harness] = map[string][]store.StoredPrompt{}
		}
		if len(harness.PromptParts(p.Text)) > 1 {
			ps.pasted[p.Harness] = append(ps.pasted[p.Harness], p)
		} else {
			ps.unlinked[p.Harness][p.Text] = append(ps.unlinked[p.Harness][p.Text], p)
		}
	}
}

// asked takes from the set, and returns the IDs of, the prompts of
// harnessName linked to no session that user, a user message of a
// session of project normalized, asks exactly (harness.HoldsPromptParts):
// those of the project or of none.
func (ps *promptSet) asked(harnessName, project, user string) []string {
	var ids []string
	take := func(list []store.StoredPrompt, match func(store.StoredPrompt) bool) []store.StoredPrompt {
		kept := list[:0]
		for _, p := range list {
			if (p.Project == "" || p.Project == project) && match(p) {
				ids = append(ids, p.ID)
			} else {
				kept = append(kept, p)
			}
		}
		return kept
	}
	byText := ps.unlinked[harnessName]
	if same, ok := byText[user]; ok {
		if byText[user] = take(same, func(store.StoredPrompt) bool { return true }); len(byText[user]) == 0 {
			delete(byText, user)
		}
	}
	if len(ps.pasted[harnessName]) > 0 {
		ps.pasted[harnessName] = take(ps.pasted[harnessName], func(p store.StoredPrompt) bool {
			return harness.HoldsPromptParts(user, harness.PromptParts(p.Text), false)
		})
	}
	return ids
}
