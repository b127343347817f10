package harness_test

import (
	"errors"
	"testing"

	"github.com/deja-dev/deja/aider"
	"github.com/deja-dev/deja/harness"
)

// picky claims only files named "picky".
type picky struct{ aider.Reader }

func (picky) Name() string { return "picky" }
func (picky) Sniff(path string, head []byte) error {
	if path != "picky" {
		return errors.New("not picky")
	}
	return nil
}

func TestRegistryDetectFallsBackToTheLastReader(t *testing.T) {
	reg := harness.Registry{picky{}, aider.Reader{}}
	if h, err := reg.Detect("picky", []byte("x")); err != nil || h.Name() != "picky" {
		t.Fatalf("Detect(picky) = %v, %v; want picky", h, err)
	}
	if h, err := reg.Detect("notes.md", []byte("# aider chat started at 2024-01-01 10:00:00\n")); err != nil || h.Name() != "aider" {
		t.Fatalf("Detect(notes.md) = %v, %v; want aider", h, err)
	}
	if _, err := reg.Detect("blob", []byte("\x00\x00\x00\x01\x02")); !errors.Is(err, aider.ErrBinary) {
		t.Fatalf("Detect(binary) error = %v; want aider's ErrBinary", err)
	}
	if _, err := (harness.Registry{}).Detect("x", nil); !errors.Is(err, harness.ErrNoHarness) {
		t.Fatalf("empty registry error = %v", err)
	}
	if reg.Lookup("aider") == nil || reg.Lookup("nope") != nil {
		t.Fatal("Lookup")
	}
	if err := reg.Check(); err != nil {
		t.Fatal(err)
	}
}
