package store

import (
	"context"
	"fmt"
	"strings"
	"unicode"

	"github.com/deja-dev/deja/harness"
)

// maxPromptWords bounds the words of a prompt looked up in the keyword
// index: the first dozen find the few turns that may be it, and its text
// decides.
const maxPromptWords = 12

// HoldsPrompt reports whether the store holds prompt, a prompt of a
// prompt history of harnessName stored as session id, elsewhere, its runs
// of white space aside (harness.NormalizePrompt), so that the indexer
// stores it only when it does not:
//   - linked to a session (linked, the session the history names): when
//     a user turn of that session holds it (its transcript may hold it
//     among other user messages of the turn), and when that session was
//     forgotten (forgotten stays forgotten);
//   - linked to none: when a turn of another session of the harness, in
//     project when it is set, asks exactly it. The keyword index finds the
//     candidates; a prompt with no word in it is never found.
//
// A placeholder the prompt still holds for a paste whose text the history
// no longer has ("[Pasted text #1 +40 lines]") stands for whatever the
// turn holds there (harness.PromptParts).
func (s *Store) HoldsPrompt(ctx context.Context, harnessName, id, linked, project, prompt string) (bool, error) {
	prompt = harness.NormalizePrompt(prompt)
	var query string
	var args []any
	if linked != "" {
		var forgotten bool
		if err := s.db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM tombstones WHERE session_id = ?)`, linked).Scan(&forgotten); err != nil || forgotten {
			return forgotten, err
		}
		query, args = `SELECT user FROM turns WHERE session_id = ?`, []any{linked}
	} else {
		// The words of the prompt's longest part: a placeholder left for
		// a paste is no word of the turn that holds the paste.
		longest := ""
		for _, p := range harness.PromptParts(prompt) {
			if len(p) > len(longest) {
				longest = p
			}
		}
		words := strings.FieldsFunc(strings.ToLower(longest), func(r rune) bool {
			return !unicode.IsLetter(r) && !unicode.IsDigit(r)
		})
		if len(words) == 0 {
			return false, nil
		}
		words = words[:min(len(words), maxPromptWords)]
		query = `SELECT t.user FROM turns_fts JOIN turns t ON t.id = turns_fts.rowid JOIN sessions s ON s.id = t.session_id
			WHERE turns_fts MATCH ? AND s.harness = ? AND s.id <> ? AND (? = '' OR s.project = ?) LIMIT 100`
		args = []any{`user : "` + strings.Join(words, " ") + `"`, harnessName, id, project, project}
	}
	users, err := QueryColumn[string](ctx, s.db, query, args...)
	if err != nil {
		return false, fmt.Errorf("store: looking up a prompt: %w", err)
	}
	return holds(users, prompt, linked != ""), nil
}

// holds reports whether one of users, the user messages of turns, is
// prompt, normalized, or with within holds it (a turn of the session a
// prompt is linked to may hold more than the prompt). A placeholder the
// prompt holds for a paste stands for the paste (harness.PromptParts).
func holds(users []string, prompt string, within bool) bool {
	parts := harness.PromptParts(prompt)
	for _, u := range users {
		if harness.HoldsPromptParts(harness.NormalizePrompt(u), parts, within) {
			return true
		}
	}
	return false
}

// StoredPrompt is a prompt-only session the store holds (a prompt of a
// prompt history that no session held when it was stored): its ID, the
// session it is linked to (or ""), its harness and project, and its
// prompt, normalized (harness.NormalizePrompt).
type StoredPrompt struct {
	ID, Parent, Harness, Project, Text string
}

// storedPromptsQuery reads the prompt sessions through sessions_prompts
// (schema 10), whose condition it repeats.
const storedPromptsQuery = `SELECT s.id, s.parent, s.harness, s.project, t.user
	FROM sessions s JOIN turns t ON t.session_id = s.id WHERE s.id GLOB '*-prompt-*'`

// StoredPrompts lists the prompt-only sessions the store holds, so that
// the indexer can drop one once it stores a session holding its prompt.
func (l *LedgerTx) StoredPrompts() ([]StoredPrompt, error) {
	rows, err := l.tx.QueryContext(l.Ctx, storedPromptsQuery)
	if err != nil {
		return nil, fmt.Errorf("store: reading the stored prompts: %w", err)
	}
	defer rows.Close()
	var out []StoredPrompt
	for rows.Next() {
		var p StoredPrompt
		if err := rows.Scan(&p.ID, &p.Parent, &p.Harness, &p.Project, &p.Text); err != nil {
			return nil, fmt.Errorf("store: reading the stored prompts: %w", err)
		}
		if harness.IsPromptID(p.Harness, p.ID) {
			p.Text = harness.NormalizePrompt(p.Text)
			out = append(out, p)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: reading the stored prompts: %w", err)
	}
	return out, nil
}

// UserTexts lists the user messages of the turns of session.
func (l *LedgerTx) UserTexts(session string) ([]string, error) {
	users, err := QueryColumn[string](l.Ctx, l.tx, `SELECT user FROM turns WHERE session_id = ?`, session)
	if err != nil {
		return nil, fmt.Errorf("store: reading a session's prompts: %w", err)
	}
	return users, nil
}

// HoldsPromptOf reports whether a user turn of session holds the prompt
// of the prompt-only session id, as HoldsPrompt asks of the session a
// prompt is linked to.
func (l *LedgerTx) HoldsPromptOf(session, id string) (bool, error) {
	var texts [2][]string
	for i, of := range [2]string{id, session} {
		var err error
		if texts[i], err = l.UserTexts(of); err != nil {
			return false, err
		}
	}
	return len(texts[0]) == 1 && holds(texts[1], texts[0][0], true), nil
}
