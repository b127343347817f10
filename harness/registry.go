package harness

import (
	"errors"
	"fmt"
)

// Registry is the harnesses deja reads, in the order a file is offered to
// them: specific formats first, the most permissive last (aider, which
// reads any text file named on the command line). It is a plain value that
// the command line builds from the configuration; no harness registers
// itself.
type Registry []Reader

// Lookup returns the harness with the given name, nil when there is none.
func (r Registry) Lookup(name string) Reader {
	for _, h := range r {
		if h.Name() == name {
			return h
		}
	}
	return nil
}

// Names lists the harnesses' names in registry order.
func (r Registry) Names() []string {
	names := make([]string, len(r))
	for i, h := range r {
		names[i] = h.Name()
	}
	return names
}

// ErrNoHarness is returned by Detect for an empty registry.
var ErrNoHarness = errors.New("no harness is enabled")

// Detect returns the first harness that claims the file at path, whose
// leading bytes are head. When none does, the error is the last harness's
// reason, so the most permissive reader says why a file is not history.
func (r Registry) Detect(path string, head []byte) (Reader, error) {
	err := ErrNoHarness
	for _, h := range r {
		if err = h.Sniff(path, head); err == nil {
			return h, nil
		}
	}
	return nil, err
}

// Check returns an error when a harness implements neither FileReader nor
// WholeReader, which would be a programming error in its package.
func (r Registry) Check() error {
	for _, h := range r {
		_, file := h.(FileReader)
		_, whole := h.(WholeReader)
		if file == whole {
			return fmt.Errorf("harness %s must implement exactly one of FileReader and WholeReader", h.Name())
		}
	}
	return nil
}
