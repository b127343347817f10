package main

import (
	"testing"

	"github.com/deja-dev/deja/internal/lazyre"
)

// TestPatternsCompile compiles every pattern this package declares, which
// deja otherwise compiles only when a text first reaches it.
func TestPatternsCompile(t *testing.T) {
	if err := lazyre.CompileAll(); err != nil {
		t.Fatal(err)
	}
}
