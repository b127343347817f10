package embed

import "time"

// Options chooses and tunes an embedder. The command layer fills it from
// deja's configuration (embed.provider, embed.model, embed.batch,
// embed.timeout, ollama.host); zero values take the defaults below.
type Options struct {
	// Provider is "auto" (the default), "ollama" or "builtin".
	Provider string
	// Model is the Ollama model; empty means nomic-embed-text.
	Model string
	// Host is the Ollama address, overriding OLLAMA_HOST when set.
	Host string
	// Batch is how many texts go into one /api/embed request; 0 means 32.
	Batch int
	// Timeout bounds each Ollama request; 0 means 60s.
	Timeout time.Duration
}

// Defaults for Options' zero values.
const (
	DefaultModel   = "nomic-embed-text"
	DefaultBatch   = 32
	DefaultTimeout = 60 * time.Second
)

// withDefaults returns o with its zero values replaced by the defaults.
func (o Options) withDefaults() Options {
	if o.Provider == "" {
		o.Provider = "auto"
	}
	if o.Model == "" {
		o.Model = DefaultModel
	}
	if o.Batch <= 0 {
		o.Batch = DefaultBatch
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	return o
}
