package gemini

import (
	"path/filepath"
	"testing"
)

// corpusDir holds real recordings beside the repository; a user's clone
// has none, so the tests that read it skip.
const corpusDir = "../../../shared/harness/corpus/gemini-cli"

// corpusChats returns the corpus's chat recordings (not logs.json or
// checkpoints, which are not chats).
func corpusChats(t testing.TB) []string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(corpusDir, "*chats_session-*.json*"))
	fixture, _ := filepath.Glob(filepath.Join(corpusDir, "*session-set-snapshot.jsonl"))
	files = append(files, fixture...)
	if len(files) == 0 {
		t.Skipf("no corpus at %s (it sits beside the repository in CI)", corpusDir)
	}
	return files
}
