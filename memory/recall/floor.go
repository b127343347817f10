package recall

import (
	"strings"

	"github.com/deja-dev/deja/embed"
)

// Floor is the lowest cosine similarity at which a turn counts as a
// semantic match for the embedder: below it, vectors of unrelated text
// still score something, and a nonsense query would get confident-looking
// hits. Each embedder's scale differs, so each has its own floor.
//
// builtin:glove-100d-80k was measured with 'go run ./bench/eval -sweep' on the
// aider corpus: out-of-domain queries reach 0.31–0.39 against code
// conversations, while answers to paraphrases sit at 0.25–0.75. A floor
// alone must sit above every negative (0.40 clears "how to knit a wool
// scarf" at 0.385 by 0.015), so it is 0.35 together with Domain, which
// turns away the off-topic queries that reach it; paraphrase targets at
// 0.35–0.40 (the sample's "shrink the container image", 0.36) now count.
// The Ollama floors are the usual cosine levels of those models for
// unrelated text and have not been measured here.
func Floor(identity string) float32 {
	switch {
	case identity == embed.BuiltinIdentity:
		return 0.35
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

// CrossProjectFloor is the lowest similarity at which a turn of another
// project is put in front of an agent unasked ('deja hook' at a prompt),
// and then only as the keyword list's first turn: code talk of one project
// always resembles another's. Measured with 'go run ./bench/hook'
// (builtin:glove-100d-80k, the harness corpora's sessions replayed against the
// other half; prompts of sessions whose project had no past that got
// other projects' turns): the semantic floor alone 18 of 37 answered; both
// lists required, 18 of 37; both and 0.70, 8 of 37; keyword first and
// 0.80, 1 of 37; keyword first and 0.84, none of 37, while the same
// question asked again from another project (0.86) still comes back.
// The Ollama models have not been measured: they get the same level.
func CrossProjectFloor(identity string) float32 {
	_ = identity
	return 0.84
}

// Domain is the lowest mean similarity a query must have to the documents
// in scope before any of them counts as a semantic match, or 0 for no such
// test. The mean is the query's similarity to the documents' centroid: how
// much the query is about what the store holds at all.
//
// builtin:glove-100d-80k, measured on the aider corpus (bench/eval): the
// negatives' mean similarities are -0.07–0.07 and all but one are below
// 0.02, the paraphrases' 0.14–0.39 except two that no floor finds (0.01,
// 0.03); identifiers GloVe barely knows sit low too (createStripedCanvas
// 0.04), and lose their semantic list to the keyword one. The z-score of
// the top hit does not tell them apart: the negatives' best turns stand
// 2.9–4.7 standard deviations above their mean, the paraphrase targets
// 0.9–4.2. Ollama models have no measured value and no such test.
func Domain(identity string) float32 {
	if identity == embed.BuiltinIdentity {
		return 0.05
	}
	return 0
}

// domainPseudoCount is how many documents like the prior's centroid the
// domain test counts beside a store's own: at the corpus's 2,044 chunks
// the prior moves a mean by a few hundredths at most, in a store of two
// turns it decides.
const domainPseudoCount = 50

// domainPrior is the centroid of a typical store for the embedder, the
// domain test's prior, or nil when none was measured.
func domainPrior(identity string) []float32 {
	if identity == embed.BuiltinIdentity {
		return builtinCentroid
	}
	return nil
}
