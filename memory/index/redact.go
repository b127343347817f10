package index

import (
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/memory/redact"
	"github.com/deja-dev/deja/memory/store"
)

// redactSession removes secrets from a parsed session before any of it
// reaches the ledger, the keyword index or an embedder, and returns how many
// it removed. Every text a harness hands over goes through it, whichever
// harness read it: the header line (aider writes only a time there; text
// after it is dropped), the project (a cwd may hold a token in a query or
// a directory named after a key), messages, record values (a command may
// hold a token, a file name a pasted key), and the records' outcomes and
// spans (what a command printed, what an edit replaced and wrote). Turns, FTS terms, vectors,
// digests and what a team is sent are all made from what this leaves; a
// session's ID and parent are not, as harness.CheckIDs keeps them to a
// safe alphabet.
func redactSession(s *harness.Session) int {
	var n, k int
	s.Header, n = redact.Header(s.Header)
	s.Project, k = store.RedactPath(s.Project)
	n += k
	for i := range s.Messages {
		var k int
		s.Messages[i].Text, k = redact.Text(s.Messages[i].Text)
		n += k
	}
	for i := range s.Records {
		r := &s.Records[i]
		var k int
		r.Value, k = redact.Text(r.Value)
		n += k
		// A command's output and an edit's text are history too: a test
		// prints the token it failed with, an edit writes a .env line.
		for _, f := range []*string{&r.Outcome.Output, &r.Span.Old, &r.Span.New} {
			if *f != "" {
				*f, k = redact.Text(*f)
				n += k
			}
		}
		// Cut to what the store keeps only now: a secret the cut went
		// through would no longer be recognised.
		r.Outcome.Output = harness.StoredOutput(r.Outcome.Output)
		var oldCut, newCut bool
		r.Span.Old, oldCut = harness.StoredSpan(r.Span.Old)
		r.Span.New, newCut = harness.StoredSpan(r.Span.New)
		r.Span.Clipped = r.Span.Clipped || oldCut || newCut
	}
	return n
}

// redactSessions redacts the sessions not forgotten (skip) on every core,
// and returns how many secrets it removed. Redaction is most of what
// indexing does before it writes (measured: 2.9 s of 3.2 s at 100k turns),
// and the writer waits for it, so it gets the cores the writer leaves.
func redactSessions(sessions []harness.Session, skip map[string]bool) int {
	var next, removed atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(sessions)) {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= len(sessions) {
					return
				}
				if !skip[sessions[i].ID] {
					removed.Add(int64(redactSession(&sessions[i])))
				}
			}
		})
	}
	wg.Wait()
	return int(removed.Load())
}

// storedHeader is a parsed session's header as the ledger holds it, for
// comparing a session read now with one read before.
func storedHeader(h string) string {
	h, _ = redact.Header(h)
	return h
}
