// Package recall ranks the stored turns for a query: the keyword list
// (BM25 over the FTS5 index, literals that must appear, close spellings),
// the semantic list (the vectors in collections scanned exactly, kept warm
// by a long-running process, or put a piece at a time into chromem-go
// collections by a one-shot one),
// their fusion, scopes, thin turns, records and snippets.
//
// It reads the store through store.Store.Read and keeps what it loads in
// the store's Cache; it never writes and must not know how histories are
// parsed or indexed.
package recall
