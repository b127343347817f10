// Package chunk turns an aider session into turns — one user message, the
// assistant messages that answer it and the turn's file and command records —
// and cuts each turn into the texts that get embedded.
//
// It knows nothing of storage, embeddings or the command line.
package chunk
