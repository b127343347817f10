package store

import (
	"context"
	"fmt"
	"strings"
	"unicode"

	"github.com/deja-dev/deja/harness"
)

// A prompt of an agent's prompt history is stored as a turn of its own
// only when the store holds it nowhere else (harness.Session.PromptOnly):
// the indexer asks the two questions below.

// LinkedPrompts returns the user texts of the stored turns of session,
// each normalized (harness.NormalizePrompt), and whether the session was
// forgotten: a prompt a history links to it is stored again in neither
// case (forgotten stays forgotten).
func (s *Store) LinkedPrompts(ctx context.Context, session string) (texts []string, forgotten bool, err error) {
	var n int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM tombstones WHERE session_id = ?`, session).Scan(&n); err != nil {
		return nil, false, fmt.Errorf("store: reading the tombstones: %w", err)
	}
	if n > 0 {
		return nil, true, nil
	}
	users, err := QueryColumn[string](ctx, s.db, `SELECT user FROM turns WHERE session_id = ?`, session)
	if err != nil {
		return nil, false, fmt.Errorf("store: reading the turns of %s: %w", session, err)
	}
	for i, u := range users {
		users[i] = harness.NormalizePrompt(u)
	}
	return users, false, nil
}

// maxPromptWords bounds the words of a prompt looked up in the keyword
// index: the first dozen find the few turns that may be it, and its text
// decides.
const maxPromptWords = 12

// HoldsPrompt reports whether a session of harnessName other than except,
// in project when it is set, holds a turn whose question is prompt,
// normalized (harness.NormalizePrompt). The keyword index finds the
// candidates; a prompt with no word in it is never found.
func (s *Store) HoldsPrompt(ctx context.Context, harnessName, project, prompt, except string) (bool, error) {
	words := strings.FieldsFunc(strings.ToLower(prompt), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	if len(words) == 0 {
		return false, nil
	}
	words = words[:min(len(words), maxPromptWords)]
	query := `SELECT t.user FROM turns_fts JOIN turns t ON t.id = turns_fts.rowid JOIN sessions s ON s.id = t.session_id
		WHERE turns_fts MATCH ? AND s.harness = ? AND s.id <> ?`
	args := []any{`user : "` + strings.Join(words, " ") + `"`, harnessName, except}
	if project != "" {
		query += ` AND s.project = ?`
		args = append(args, project)
	}
	users, err := QueryColumn[string](ctx, s.db, query+` LIMIT 100`, args...)
	if err != nil {
		return false, fmt.Errorf("store: looking up a prompt: %w", err)
	}
	want := harness.NormalizePrompt(prompt)
	for _, u := range users {
		if harness.NormalizePrompt(u) == want {
			return true, nil
		}
	}
	return false, nil
}
