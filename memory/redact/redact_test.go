package redact

import (
	"strings"
	"testing"

	"github.com/deja-dev/deja/memory/redact/redacttest"
)

func TestTextRedactsSecrets(t *testing.T) {
	for _, c := range redacttest.All() {
		t.Run(c.Name, func(t *testing.T) {
			got, n := Text(c.Text)
			if n != 1 {
				t.Errorf("Text made %d redactions, want 1:\n%s", n, got)
			}
			if !strings.Contains(got, "[redacted:"+c.Kind+"]") {
				t.Errorf("no [redacted:%s] in\n%s", c.Kind, got)
			}
			if strings.Contains(got, c.Value) {
				t.Errorf("secret %q survived in\n%s", c.Value, got)
			}
			for _, k := range c.Keep {
				if !strings.Contains(got, k) {
					t.Errorf("surrounding text %q lost in\n%s", k, got)
				}
			}
		})
	}
}

// A second pass over redacted text finds nothing: labels are not secrets,
// and re-indexing a session does not inflate the count.
func TestTextIsIdempotent(t *testing.T) {
	for _, c := range redacttest.All() {
		once, _ := Text(c.Text)
		if twice, n := Text(once); n != 0 || twice != once {
			t.Errorf("%s: second pass made %d redactions:\n%s\n->\n%s", c.Name, n, once, twice)
		}
	}
}

func TestTextCountsEachSecret(t *testing.T) {
	in := "AWS_ACCESS_KEY_ID=AKIAQ3EGRTNV2XKJ7PLM\n" +
		"DB_PASSWORD=correcthorse\n" +
		"DATABASE_URL=postgres://alice:Zq8wxLm2vR@db:5432/app\n" +
		"and a plain sentence about commit 3f9ad6b"
	got, n := Text(in)
	if n != 3 {
		t.Fatalf("Text made %d redactions, want 3:\n%s", n, got)
	}
	if !strings.HasSuffix(got, "and a plain sentence about commit 3f9ad6b") {
		t.Errorf("prose changed:\n%s", got)
	}
}

func TestTextLeavesLookalikes(t *testing.T) {
	for _, c := range redacttest.AllLookalikes() {
		t.Run(c.Name, func(t *testing.T) {
			if got, n := Text(c.Text); n != 0 || got != c.Text {
				t.Errorf("Text made %d redactions:\n%s\n->\n%s", n, c.Text, got)
			}
		})
	}
}

// The definition of done: at least 100 secret shapes redacted and 100
// look-alikes left alone; the README quotes these numbers.
func TestCoverage(t *testing.T) {
	kinds := map[string]bool{}
	all := redacttest.All()
	for _, c := range all {
		kinds[c.Kind] = true
	}
	t.Logf("%d secrets of %d kinds, %d look-alikes", len(all), len(kinds), len(redacttest.AllLookalikes()))
	if len(all) < 100 || len(redacttest.AllLookalikes()) < 100 {
		t.Errorf("%d secrets and %d look-alikes, want at least 100 of each", len(all), len(redacttest.AllLookalikes()))
	}
}
