package gemini

import (
	"testing"

	"github.com/deja-dev/deja/harness/harnesstest"
)

const corpusDir = harnesstest.SharedCorpus + "gemini-cli"

// corpusChats returns the corpus's chat recordings (not logs.json or
// checkpoints, which are not chats).
func corpusChats(t testing.TB) []string {
	return harnesstest.CorpusFiles(t, corpusDir, "*chats_session-*.json*", "*session-set-snapshot.jsonl")
}
