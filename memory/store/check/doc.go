// Package check is 'deja check': it reads a store's database and segment
// files and says what does not check out (SQLite's integrity check, the
// keyword index against the turns, the ledger's checksum, every turn's
// stored hash, every vector segment's blocks against the ledger).
//
// It only reads; repairing is package store's and rebuilding the index
// run's.
package check
