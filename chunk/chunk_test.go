package chunk

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/deja-dev/deja/harness"
)

func TestTurnsGroupsAnswersAndRecords(t *testing.T) {
	s := harness.Session{
		Messages: []harness.Message{
			{Role: harness.User, Text: "Show me the failing query", Turn: 0, Line: 3},
			{Role: harness.Assistant, Text: "The query misses the tenant predicate.", Turn: 0, Line: 5},
			{Role: harness.Assistant, Text: "Fixed after the lint error.", Turn: 0, Line: 9},
			{Role: harness.User, Text: "run the tests", Turn: 1, Line: 12},
		},
		Records: []harness.Record{
			{Kind: harness.FileRecord, Value: "query.go", Turn: 0, Line: 7},
			{Kind: harness.FileRecord, Value: "query.go", Turn: 0, Line: 10},
			{Kind: harness.CommandRecord, Value: "go test ./...", Turn: 1, Line: 13},
			{Kind: harness.FileRecord, Value: "main.go", Turn: -1, Line: 2},
		},
	}
	turns := Turns(s)
	if len(turns) != 3 {
		t.Fatalf("got %d turns, want 3 (banner records, two exchanges): %+v", len(turns), turns)
	}
	if turns[0].Index != -1 || turns[0].Files[0] != "main.go" {
		t.Errorf("turn -1 = %+v, want the banner's file record first", turns[0])
	}
	t0 := turns[1]
	if t0.User != "Show me the failing query" || !strings.Contains(t0.Assistant, "tenant predicate") || !strings.Contains(t0.Assistant, "lint error") {
		t.Errorf("turn 0 = %+v, want the question with both answers", t0)
	}
	if len(t0.Files) != 1 || t0.Line != 3 {
		t.Errorf("turn 0 files %v line %d, want [query.go] once and line 3", t0.Files, t0.Line)
	}
	if turns[2].Commands[0] != "go test ./..." {
		t.Errorf("turn 1 commands = %v", turns[2].Commands)
	}
	if t0.Hash() == turns[2].Hash() {
		t.Error("different turns hash the same")
	}
}

func TestTextsShortTurnIsOneChunk(t *testing.T) {
	got := Texts(Turn{User: "q", Assistant: "a"}, 200)
	if len(got) != 1 || got[0] != "q\n\na" {
		t.Errorf("Texts = %q", got)
	}
}

func TestTextsLongTurnRepeatsTheQuestion(t *testing.T) {
	answer := strings.Repeat("the tenant predicate is missing here ", 40) // ~1,500 runes
	got := Texts(Turn{User: "Why does the query leak rows?", Assistant: answer}, 300)
	if len(got) < 5 {
		t.Fatalf("got %d chunks, want the answer spread over several", len(got))
	}
	var rebuilt []string
	for _, c := range got {
		if n := utf8.RuneCountInString(c); n > 300 {
			t.Errorf("chunk of %d runes exceeds the budget", n)
		}
		q, rest, ok := strings.Cut(c, "\n\n")
		if !ok || q != "Why does the query leak rows?" {
			t.Errorf("chunk does not start with the question: %q", c[:40])
		}
		rebuilt = append(rebuilt, rest)
	}
	if strings.Join(strings.Fields(strings.Join(rebuilt, " ")), " ") != strings.Join(strings.Fields(answer), " ") {
		t.Error("the chunks lose part of the answer")
	}
}

func TestTextsRecordsOnlyTurn(t *testing.T) {
	got := Texts(Turn{Commands: []string{"go test ./..."}}, 200)
	if len(got) != 1 || got[0] != "go test ./..." {
		t.Errorf("Texts = %q", got)
	}
	if Texts(Turn{}, 200) != nil {
		t.Error("an empty turn has texts")
	}
}

func TestTextsHugeQuestionStaysInBudget(t *testing.T) {
	q := strings.Repeat("é", 5000)
	for _, c := range Texts(Turn{User: q, Assistant: "ok"}, 1000) {
		if n := utf8.RuneCountInString(c); n > 1000 {
			t.Errorf("chunk of %d runes", n)
		}
	}
}

// TestTextsMultiMegabyteAnswer cuts a 4 MB answer on one line, as aider
// writes a pasted log back, into chunks that each hold the question, stay
// in budget and together give back the whole answer in order.
func TestTextsMultiMegabyteAnswer(t *testing.T) {
	const question = "Why does the import stall?"
	answer := longAnswer(4 << 20)
	got := Texts(Turn{User: question, Assistant: answer}, DefaultBudget)
	room := DefaultBudget - utf8.RuneCountInString(question) - 2
	if want := utf8.RuneCountInString(answer) / room; len(got) < want {
		t.Fatalf("got %d chunks, want at least %d", len(got), want)
	}
	var rebuilt strings.Builder
	for i, c := range got {
		if n := utf8.RuneCountInString(c); n > DefaultBudget {
			t.Fatalf("chunk %d has %d runes, over the budget of %d", i, n, DefaultBudget)
		}
		q, rest, ok := strings.Cut(c, "\n\n")
		if !ok || q != question {
			t.Fatalf("chunk %d does not start with the question: %.40q", i, c)
		}
		if rest == "" || rest != strings.TrimSpace(rest) {
			t.Fatalf("chunk %d: answer part %.40q is empty or not trimmed", i, rest)
		}
		if i > 0 {
			rebuilt.WriteByte(' ')
		}
		rebuilt.WriteString(rest)
	}
	if rebuilt.String() != answer {
		t.Error("the chunks joined by a space are not the answer: a part was lost, repeated or cut inside a word")
	}
}

// longAnswer is size bytes of one line of words, with multi-byte runes so
// a cut inside a rune would show.
func longAnswer(size int) string {
	words := []string{"tenant", "prédicat", "query", "leak", "行", "rows", "index"}
	var b strings.Builder
	for i := 0; b.Len() < size; i++ {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(words[i%len(words)])
	}
	return b.String()
}

// BenchmarkTextsLongAnswer measures cutting one 1 MB answer; the time per
// byte must not grow with the answer's length.
func BenchmarkTextsLongAnswer(b *testing.B) {
	answer := longAnswer(1 << 20)
	b.SetBytes(int64(len(answer)))
	for b.Loop() {
		Texts(Turn{User: "Why does the import stall?", Assistant: answer}, DefaultBudget)
	}
}

func TestAFailedEditIsNoEdit(t *testing.T) {
	s := harness.Session{Messages: []harness.Message{{Role: harness.User, Text: "fix it", Turn: 0}}, Records: []harness.Record{
		{Kind: harness.FileRecord, Value: "a.go", Action: harness.Edited, Outcome: harness.Outcome{Status: harness.Failed}},
		{Kind: harness.FileRecord, Value: "b.go", Action: harness.Edited, Outcome: harness.Outcome{Status: harness.Failed}},
		{Kind: harness.FileRecord, Value: "b.go", Action: harness.Edited, Outcome: harness.Outcome{Status: harness.Succeeded}, Span: harness.Span{Old: "x", New: "y"}},
		{Kind: harness.CommandRecord, Value: "go test ./...", Outcome: harness.Outcome{Status: harness.Failed, Exit: harness.ExitStatus(1), Output: "FAIL"}},
	}}
	turns := Turns(s)
	if len(turns) != 1 {
		t.Fatalf("turns: %+v", turns)
	}
	tr := turns[0]
	if strings.Join(tr.Files, ",") != "a.go,b.go" || tr.Actions[0] != harness.Read || tr.Actions[1] != harness.Edited {
		t.Errorf("files %v actions %v", tr.Files, tr.Actions)
	}
	if len(tr.Work.Edits) != 3 || len(tr.Work.Runs) != 1 || *tr.Work.Runs[0].Exit != 1 || tr.Work.Edits[2].Seq != 2 {
		t.Errorf("work %+v", tr.Work)
	}
}

func TestShrunkWorkKeepsOutcomesAndFiles(t *testing.T) {
	big := strings.Repeat("line of a written file\n", 2000)
	w := Work{Runs: []Run{{Command: "go test ./...", Status: harness.Failed, Exit: harness.ExitStatus(1), Output: "FAIL"}}}
	for range 10 {
		w.Edits = append(w.Edits, Edit{File: "gen.go", Status: harness.Succeeded, New: big, Whole: true})
	}
	got := w.Shrunk(100 << 10)
	if n := len(got.Encode()); n > 100<<10 {
		t.Fatalf("shrunk to %d bytes", n)
	}
	if len(got.Edits) != 10 || got.Edits[0].File != "gen.go" || !got.Edits[0].Clipped || got.Edits[9].New == "" ||
		got.Runs[0].Output != "FAIL" || *got.Runs[0].Exit != 1 {
		t.Errorf("shrunk work: %d edits, first %+v, last kept %v, run %+v", len(got.Edits), got.Edits[0].Clipped, got.Edits[9].New != "", got.Runs[0])
	}
	if w.Edits[0].New == "" {
		t.Error("Shrunk changed the work it was given")
	}
	if small := (Work{Runs: w.Runs}); small.Shrunk(100<<10).Encode() != small.Encode() {
		t.Error("work within the bound changed")
	}
}
