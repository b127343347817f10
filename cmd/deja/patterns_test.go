package main

import (
	"testing"

	"github.com/deja-dev/deja/internal/lazyre"
)

// TestPatternsCompile compiles every pattern declared with lazyre.New,
// which deja otherwise compiles only when a text first reaches it. This
// test binary links every package deja does, so it holds them all.
func TestPatternsCompile(t *testing.T) {
	if err := lazyre.CompileAll(); err != nil {
		t.Fatal(err)
	}
}
