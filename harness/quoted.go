package harness

import (
	"encoding/json"
	"unicode/utf8"

	"github.com/deja-dev/deja/memory/redact"
	"github.com/deja-dev/deja/quote"
)

// Quoted is a value a history held, as a reader's warning quotes it:
// redacted whole before it is cut to 40 bytes (a cut command can hide
// what makes its password one), inert, and in JSON quotes.
func Quoted(s string) string {
	s, _ = redact.Text(s)
	s = quote.Line(s)
	if len(s) > 40 {
		cut := 40
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	b, _ := json.Marshal(s)
	return string(b)
}
