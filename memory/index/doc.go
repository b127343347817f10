// Package index is the pipeline from the harnesses' histories to the
// store: it finds what changed since the last run, reads each history
// ahead of the writer (whole, a window of sessions at a time, or streamed
// in pieces), redacts, cuts sessions into turns and chunks, embeds them,
// and hands them to the store's ledger transaction a batch at a time,
// then fills in the vectors a run could not make.
//
// It decides what to write and never writes itself: every row goes
// through store.LedgerTx. It must not know how turns are ranked or shown.
package index
