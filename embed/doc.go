// Package embed turns text into vectors: the Embedder interface, Ollama
// through its official client, and a built-in offline embedder compiled
// into deja so recall by meaning works with nothing installed.
//
// It knows nothing of parsing or storage.
package embed
