package memory

import (
	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/memory/redact"
)

// redactSession removes secrets from a parsed session before any of it
// reaches the ledger, the keyword index or an embedder, and returns how many
// it removed. Header lines carry only a time; messages and record values
// (a command may hold a token) are what users typed or aider printed.
func redactSession(s *harness.Session) int {
	n := 0
	for i := range s.Messages {
		var k int
		s.Messages[i].Text, k = redact.Text(s.Messages[i].Text)
		n += k
	}
	for i := range s.Records {
		var k int
		s.Records[i].Value, k = redact.Text(s.Records[i].Value)
		n += k
	}
	return n
}
