package redact

import (
	"strings"
	"testing"

	"github.com/deja-dev/deja/memory/redact/redacttest"
)

// FuzzText: Text and Header never panic, and Text adds one label for each
// redaction it counts.
func FuzzText(f *testing.F) {
	for _, c := range redacttest.All() {
		f.Add(c.Text)
	}
	for _, c := range redacttest.AllLookalikes() {
		f.Add(c.Text)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out, n := Text(s)
		if added := strings.Count(out, labelPrefix) - strings.Count(s, labelPrefix); added != n {
			t.Fatalf("Text counted %d redactions and added %d labels:\n%q\n%q", n, added, s, out)
		}
		Header("# aider chat started at 2026-01-01 10:00:00" + s)
	})
}
