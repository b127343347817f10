package redact

import (
	"strings"
	"testing"

	"github.com/deja-dev/deja/memory/redact/redacttest"
)

// The field table is issue 27's definition of done: every secret of every
// family is gone after redaction, and at least 97% of the look-alikes are
// left exactly as written. The README quotes the counts this logs.
func TestFieldShapes(t *testing.T) {
	shapes := redacttest.FieldShapes()
	if len(shapes) < 300 {
		t.Errorf("%d secret shapes, want at least 300", len(shapes))
	}
	leaked := 0
	for _, c := range shapes {
		got, n := Text(c.Text)
		for _, v := range c.Values {
			if strings.Contains(got, v) {
				leaked++
				t.Errorf("%s (%s): %q survived %d redactions in\n%s", c.Name, c.Family, v, n, got)
				break
			}
		}
	}
	t.Logf("secrets: %d of %d redacted", len(shapes)-leaked, len(shapes))
}

// A command line or a file name made of a secret holds it on one line,
// its blanks joined: every shape is gone from that line too (a private
// key flattened so kept its short last line).
func TestFieldShapesOnOneLine(t *testing.T) {
	for _, c := range redacttest.FieldShapes() {
		line := strings.Join(strings.Fields(c.Text), " ")
		got, n := Text(line)
		for _, v := range c.Values {
			if strings.Contains(got, v) {
				t.Errorf("%s (%s): %q survived %d redactions in\n%s", c.Name, c.Family, v, n, got)
				break
			}
		}
	}
}

func TestFieldLookalikes(t *testing.T) {
	looks := redacttest.FieldLookalikes()
	if len(looks) < 150 {
		t.Errorf("%d look-alikes, want at least 150", len(looks))
	}
	kept := 0
	for _, c := range looks {
		if got, n := Text(c.Text); n == 0 && got == c.Text {
			kept++
		} else {
			t.Logf("%s: %d redactions:\n%s\n->\n%s", c.Name, n, c.Text, got)
		}
	}
	t.Logf("look-alikes: %d of %d kept", kept, len(looks))
	if kept*100 < 97*len(looks) {
		t.Errorf("kept %d of %d look-alikes, want at least 97%%", kept, len(looks))
	}
}
