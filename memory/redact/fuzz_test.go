package redact

import (
	"strings"
	"testing"

	"github.com/deja-dev/deja/memory/redact/redacttest"
)

// FuzzText: Text and Header never panic, Text adds one label for each
// redaction it counts, redacting twice changes nothing, and no output is
// longer than its input plus the labels.
func FuzzText(f *testing.F) {
	for _, c := range redacttest.All() {
		f.Add(c.Text)
	}
	for _, c := range redacttest.FieldShapes() {
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
		if twice, n := Text(out); n != 0 || twice != out {
			t.Fatalf("a second pass made %d redactions:\n%q\n%q\n%q", n, s, out, twice)
		}
		if len(out)-labelBytes(out) > len(s)-labelBytes(s) {
			t.Fatalf("output outgrew its input by more than its labels:\n%q\n%q", s, out)
		}
		Header("# aider chat started at 2026-01-01 10:00:00" + s)
	})
}

// labelBytes is how many bytes of s are labels.
func labelBytes(s string) int {
	n := 0
	for _, m := range labelRE.FindAllString(s, -1) {
		n += len(m)
	}
	return n
}
