// Package segment is the format of a vector segment file: blocks of
// vectors keyed by turn and part, with their sessions' facts, each block
// checksummed, written only by appending or by rewriting the live vectors
// into a new file (WriteCompacted), and read whole (DecodeSegment), as a
// layout without the floats (LayoutSegment) or a piece at a time
// (SegmentLayout.Scan).
//
// It knows files and bytes only: which segment an embedder has, when one
// is written and what the ledger says of it are package store's.
package segment
