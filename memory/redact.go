package memory

import (
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/memory/redact"
)

// redactSession removes secrets from a parsed session before any of it
// reaches the ledger, the keyword index or an embedder, and returns how many
// it removed. Every text a harness hands over goes through it, whichever
// harness read it: the header line (aider writes only a time there; text
// after it is dropped), the project (a cwd may hold a token in a query or
// a directory named after a key), messages, and record values (a command
// may hold a token, a file name a pasted key). Turns, FTS terms, vectors,
// digests and what a team is sent are all made from what this leaves; a
// session's ID and parent are not, as harness.CheckIDs keeps them to a
// safe alphabet.
func redactSession(s *harness.Session) int {
	var n, k int
	s.Header, n = redact.Header(s.Header)
	s.Project, k = redactPath(s.Project)
	n += k
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

// redactLines removes secrets from lines deja shows or sends about what it
// read: a problem or warning may quote a history (an ID of the wrong shape,
// an unknown record type, a path whose directory holds a cwd).
func redactLines(lines []string) []string {
	for i, l := range lines {
		lines[i], _ = redact.Text(l)
	}
	return lines
}

// redactRemote removes secrets from turns a team sent, as redactSession
// does from a history read here: the sender's deja may redact less (an
// older version, or a member's own build), and its project, name and
// machine are stored and shown as its text is. Session and parent IDs
// and the harness are checked by ValidIDs; the subject is the server's.
func redactRemote(turns []RemoteTurn) []RemoteTurn {
	out := make([]RemoteTurn, len(turns))
	for i, t := range turns {
		t.Project, _ = redactPath(t.Project)
		t.Person, _ = redact.Text(t.Person)
		t.Origin, _ = redact.Text(t.Origin)
		t.User, _ = redact.Text(t.User)
		t.Assist, _ = redact.Text(t.Assist)
		t.Files = redactLines(slices.Clone(t.Files))
		t.Commands = redactLines(slices.Clone(t.Commands))
		out[i] = t
	}
	return out
}
