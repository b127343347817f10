package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRegistryDetectsEachCorpusFile pins the registry's order: every real
// transcript beside the repository goes to its own harness from the head
// the indexer reads, none to another that also reads JSONL.
func TestRegistryDetectsEachCorpusFile(t *testing.T) {
	const corpus = "../../../shared/harness/corpus"
	want := map[string]string{"claude-code/*.jsonl": "claude", "codex/*rollout-*.jsonl": "codex", "gemini-cli/*chats_session-*.jsonl": "gemini",
		"pi/*.jsonl": "pi", "openclaw/*.jsonl": "pi"}
	reg := knownHarnesses()
	n := 0
	for glob, harnessName := range want {
		files, _ := filepath.Glob(filepath.Join(corpus, glob))
		for _, f := range files {
			n++
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			h, err := reg.Detect(f, data[:min(len(data), 8192)])
			if err != nil || h.Name() != harnessName {
				got := "none"
				if h != nil {
					got = h.Name()
				}
				t.Errorf("%s: detected as %s (%v), want %s", filepath.Base(f), got, err, harnessName)
			}
		}
	}
	if n == 0 {
		t.Skipf("no corpus at %s", corpus)
	}
	if !strings.Contains(strings.Join(reg.Names(), " "), "aider") || reg[len(reg)-1].Name() != "aider" {
		t.Errorf("aider, which reads any text, must come last: %v", reg.Names())
	}
}
