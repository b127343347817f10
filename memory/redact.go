package memory

import (
	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/memory/redact"
)

// redactSession removes secrets from a parsed session before any of it
// reaches the ledger, the keyword index or an embedder, and returns how many
// it removed. Every text a harness hands over goes through it, whichever
// harness read it: the header line (aider writes only a time there; text
// after it is dropped), messages, and record values (a command may hold a
// token, a file name a pasted key). Turns, FTS terms, vectors and digests
// are all made from what this leaves.
func redactSession(s *harness.Session) int {
	var n int
	s.Header, n = redact.Header(s.Header)
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

// storedHeader is a parsed session's header as the ledger holds it, for
// comparing a session read now with one read before.
func storedHeader(h string) string {
	h, _ = redact.Header(h)
	return h
}
