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
		words := strings.FieldsFunc(strings.ToLower(prompt), func(r rune) bool {
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
	for _, u := range users {
		u = harness.NormalizePrompt(u)
		if u == prompt || linked != "" && strings.Contains(u, prompt) {
			return true, nil
		}
	}
	return false, nil
}
