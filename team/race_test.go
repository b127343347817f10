//go:build race

package team

// raceEnabled says the tests run under the race detector, so a program a
// test builds is built with it too and reuses the race build's cache.
const raceEnabled = true
