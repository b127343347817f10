//go:build !race

// Package racebuild says whether the race detector is on, for the tests
// that size their work to it, leave a step to ./test.sh's run without it,
// or build a program with the same flags so it reuses the build cache.
package racebuild

// Enabled says the binary runs under the race detector.
const Enabled = false
