package embed

import "strings"

// taskPrefixes returns what to put before a document and before a query for
// the given Ollama model. Retrieval models are trained with these markers
// and rank noticeably worse without them; a model not listed gets none.
// The first family whose name starts the model's base name wins, so the
// more specific names come first.
func taskPrefixes(model string) (document, query string) {
	const retrievalInstruction = "Represent this sentence for searching relevant passages: "
	for _, f := range []struct {
		family          string
		document, query string
	}{
		{"nomic-embed-text", "search_document: ", "search_query: "},
		{"mxbai-embed-large", "", retrievalInstruction},
		{"bge-m3", "", ""}, // multilingual BGE needs no instruction
		{"bge-", "", retrievalInstruction},
		{"e5-mistral", "", ""}, // wants a task-specific instruction deja cannot know
		{"e5-", "passage: ", "query: "},
		{"multilingual-e5-", "passage: ", "query: "},
	} {
		if strings.HasPrefix(baseModelName(model), f.family) {
			return f.document, f.query
		}
	}
	return "", ""
}

// baseModelName strips the registry path and tag from an Ollama model
// name: "hf.co/nomic-ai/nomic-embed-text-v1.5:Q8_0" → "nomic-embed-text-v1.5".
func baseModelName(model string) string {
	name := strings.ToLower(model)
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	if i := strings.IndexByte(name, ':'); i >= 0 {
		name = name[:i]
	}
	return name
}
