//go:build !race

package team

const raceEnabled = false
