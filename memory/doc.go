// Package memory is deja's store: a ledger of history files, sessions and
// turns in one SQLite database that also holds the keyword index (FTS5,
// BM25) and each turn's vectors; recall loads the vectors it needs into
// in-memory chromem-go collections and fuses the semantic and keyword lists.
//
// It indexes incrementally, takes one writer at a time, and keeps forgotten
// sessions out with tombstones. It knows nothing of cobra, flags or printing.
package memory
