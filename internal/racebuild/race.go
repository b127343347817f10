//go:build race

package racebuild

// Enabled says the binary runs under the race detector.
const Enabled = true
