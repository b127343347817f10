package serve

import (
	"fmt"

	"github.com/deja-dev/deja/quote"
)

// An answer is bounded in bytes whatever the turns it quotes hold: one
// Claude turn with a million Bash calls made one recall answer 12.9 MB.
// Questions and answers are previewed (QuestionPreview, AnswerPreview);
// these bound the rest, and an answer says what it left out.
const (
	// MaxRecords is how many of a turn's files, and of its commands, a
	// recall, related or show answer lists; the rest are counted
	// (records_cut). 'deja show' prints them all.
	MaxRecords = 20
	// RecordPreview is how many runes of one file path or command an
	// answer carries, "…" marking a cut.
	RecordPreview = 300
	// MaxAnswerBytes bounds the turns of one recall or related answer,
	// and the sessions of one sessions answer: those past it are left
	// out and counted.
	MaxAnswerBytes = 256 << 10
)

// records is a turn's files or commands as an answer lists them, and how
// many it leaves out. Listed again, they are unchanged.
func records(rs []string) ([]string, int) {
	n := min(len(rs), MaxRecords)
	out := make([]string, n)
	for i := range n {
		out[i] = quote.Line(preview(rs[i], RecordPreview))
	}
	return out, len(rs) - n
}

// hitBytes is about how many bytes a recalled turn adds to an answer.
func hitBytes(h RecallHit) int {
	n := len(h.SessionID) + len(h.History) + len(h.Project) + len(h.User) + len(h.Assistant) + len(h.From) + 256
	for _, r := range h.Files {
		n += len(r) + 4
	}
	for _, r := range h.Commands {
		n += len(r) + 4
	}
	return n
}

// recordsCutNote says, after a turn's quoted block, what its records
// left out.
func recordsCutNote(cut int, ref string) string {
	return fmt.Sprintf("(… %d more records cut: show %s lists them)\n", cut, ref)
}
