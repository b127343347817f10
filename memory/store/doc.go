// Package store is deja's store on disk: a ledger of history files,
// sessions and turns in one SQLite database that also holds the keyword
// index (FTS5), and each embedder's vectors in a segment file beside it
// (their format is package segment's).
//
// It is the only code that opens, writes or migrates those files: the
// schema and its upgrades, the ledger and its checksum, write
// transactions (LedgerTx, the one an index run writes through), vector
// segments and their repair, keyword rows, tombstones (forget), the team's
// imported turns and sent marks, the key of history paths that held a
// secret, and the lock one writer at a time takes. A Store is opened once
// and handed down; the packages above read it through Read and ReadConn,
// which run queries and never a write, and keep what they load in a Cache
// the store drops whenever its rows change (Invalidate).
//
// It must not know how histories are parsed or indexed (package index),
// how turns are ranked (package recall), or how anything is shown.
package store
