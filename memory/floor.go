package memory

import "strings"

// Floor is the lowest cosine similarity at which a turn counts as a
// semantic match for the embedder: below it, vectors of unrelated text
// still score something, and a nonsense query would get confident-looking
// hits. Each embedder's scale differs, so each has its own floor.
//
// builtin:glove-100d was measured with 'go run ./bench/eval -sweep' on the
// aider corpus: out-of-domain queries reach 0.35–0.40 against code
// conversations (at 0.35 one of ten negatives returns hits, at 0.30 five),
// while answers to paraphrases sit at 0.45–0.75; 0.45 keeps a margin over
// every negative and loses one paraphrase hit against 0.40. The Ollama
// floors are the usual cosine levels of those models for unrelated text
// and have not been measured here.
func Floor(identity string) float32 {
	switch {
	case identity == "builtin:glove-100d":
		return 0.45
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
