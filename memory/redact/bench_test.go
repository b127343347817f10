package redact

import (
	"strings"
	"testing"

	"github.com/deja-dev/deja/memory/redact/redacttest"
)

// message is a chat turn as aider writes one: a question, an answer with
// prose, a code block and a shell transcript, every look-alike from the
// tests and one secret in five.
func message() string {
	var b strings.Builder
	for i, c := range redacttest.Lookalikes {
		b.WriteString("#### why does the indexer skip this file when the session is resumed?\n\n")
		b.WriteString("The parser reads the history in order and keeps the offset of the last session, ")
		b.WriteString("so a resumed session starts where the previous one stopped. Here is the change:\n\n")
		b.WriteString("```go\nfunc (s *Store) Resume(ctx context.Context, id string) (*Session, error) {\n")
		b.WriteString("\trow := s.db.QueryRowContext(ctx, `SELECT offset FROM sessions WHERE id = ?`, id)\n}\n```\n\n")
		b.WriteString(c.Text)
		b.WriteString("\n\n")
		if i%5 == 0 {
			b.WriteString(redacttest.Secrets[i%len(redacttest.Secrets)].Text)
			b.WriteString("\n\n")
		}
	}
	return b.String()
}

func BenchmarkText(b *testing.B) {
	m := message()
	b.SetBytes(int64(len(m)))
	for b.Loop() {
		Text(m)
	}
}

func BenchmarkCorpus(b *testing.B) {
	texts := corpus(b)
	size := 0
	for _, t := range texts {
		size += len(t)
	}
	b.SetBytes(int64(size))
	for b.Loop() {
		for _, t := range texts {
			Text(t)
		}
	}
}
