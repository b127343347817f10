// Package memory is deja's store: a ledger of history files, sessions and
// turns in one SQLite database that also holds the keyword index (FTS5,
// BM25), and each embedder's vectors in a segment file beside it. Recall
// puts the vectors into in-memory chromem-go collections (kept by a
// long-running process, a piece at a time by a one-shot one) and fuses the
// semantic and keyword lists.
//
// It indexes incrementally, takes one writer at a time, and keeps forgotten
// sessions out with tombstones. It knows nothing of cobra, flags or printing.
package memory
