package redact

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// corpusDir holds the real aider histories beside the repository; a user's
// clone has none, so the tests that read it skip.
const corpusDir = "../../../shared/aider/corpus"

func corpus(tb testing.TB) []string {
	tb.Helper()
	files, _ := filepath.Glob(filepath.Join(corpusDir, "*.md"))
	if len(files) == 0 {
		tb.Skipf("no corpus at %s (it sits beside the repository in CI)", corpusDir)
	}
	var texts []string
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		texts = append(texts, string(data))
	}
	return texts
}

// corpusRedactions are the redactions Text makes in the corpus, each read by
// hand: the Mixpanel project token assigned in aider's analytics.py, quoted
// as it was edited. PostHog's phc_ project key beside it is public (it
// ships in every page that loads PostHog) and stays. A test's OPENAI_API_KEY="deadbeef"
// is a dummy and stays. The histories also hold commit hashes, UUIDs,
// OpenRouter generation IDs, Clerk user IDs, CSS module class names, macOS
// temporary paths and a 92 KB inline PNG, none of which may appear here.
// When this changes, read the new redactions before updating the numbers.
var corpusRedactions = map[string]int{"assignment": 13}

var labelKindRE = regexp.MustCompile(`\[redacted:([a-z0-9-]+)\]`)

func TestCorpusRedactions(t *testing.T) {
	got := map[string]int{}
	total := 0
	for _, text := range corpus(t) {
		out, n := Text(text)
		total += n
		for _, m := range labelKindRE.FindAllStringSubmatch(out, -1) {
			got[m[1]]++
		}
	}
	if !maps.Equal(got, corpusRedactions) {
		t.Errorf("redactions by kind = %v, want %v", got, corpusRedactions)
	}
	sum := 0
	for _, n := range got {
		sum += n
	}
	if sum != total {
		t.Errorf("Text reported %d redactions but left %d labels", total, sum)
	}
	var kinds []string
	for _, k := range slices.Sorted(maps.Keys(got)) {
		kinds = append(kinds, fmt.Sprintf("%s=%d", k, got[k]))
	}
	t.Logf("%d redactions in the corpus: %s", total, strings.Join(kinds, " "))
}
