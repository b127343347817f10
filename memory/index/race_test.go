//go:build race

package index

// raceEnabled: the race detector slows indexing about tenfold, so the
// reliability tests use smaller histories to keep their runs short.
const raceEnabled = true
