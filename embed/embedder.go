package embed

import "context"

// Kind says whether texts are embedded as documents to store or as a query
// to search with; models such as nomic-embed-text expect different prefixes.
type Kind int

// The two kinds of embedding.
const (
	Document Kind = iota
	Query
)

// Embedder turns texts into vectors of one fixed dimension.
type Embedder interface {
	// Embed returns one vector per text, in order. Vectors are normalised
	// to unit length; a text with no semantic signal yields a zero vector.
	Embed(ctx context.Context, kind Kind, texts []string) ([][]float32, error)
	// Identity names the embedder and model, e.g. "ollama:nomic-embed-text"
	// or "builtin:glove-100d-80k". Vectors of different identities never mix.
	Identity() string
	// Dimension is the length of every vector Embed returns.
	Dimension() int
}
