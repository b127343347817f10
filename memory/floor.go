package memory

import "strings"

// Floor is the lowest cosine similarity at which a turn counts as a
// semantic match for the embedder: below it, vectors of unrelated text
// still score something, and a nonsense query would get confident-looking
// hits. Each embedder's scale differs, so each has its own floor,
// measured on the eval (go run ./bench/eval): for builtin:glove-100d
// related technical sentences score 0.55–0.8 and unrelated ones up to ~0.45.
func Floor(identity string) float32 {
	switch {
	case identity == "builtin:glove-100d":
		return 0.62
	case strings.HasPrefix(identity, "ollama:nomic-embed-text"):
		return 0.55
	case strings.HasPrefix(identity, "ollama:mxbai-embed-large"):
		return 0.55
	case strings.HasPrefix(identity, "ollama:all-minilm"), strings.HasPrefix(identity, "ollama:snowflake-arctic-embed"):
		return 0.35
	case strings.HasPrefix(identity, "ollama:"):
		return 0.5
	}
	return 0.5
}
