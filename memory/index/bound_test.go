package index

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/deja-dev/deja/aider"
	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/claude"
	"github.com/deja-dev/deja/harness/codex"
	"github.com/deja-dev/deja/memory/memtest"
)

// TestIndexSurvivesDeepNesting: one transcript line of two million '['
// ran the JSON decoder's recursion out of stack, a fatal error that made
// every run meeting the file index nothing; now the line is skipped and
// that transcript's other lines, and the other histories, are indexed.
func TestIndexSurvivesDeepNesting(t *testing.T) {
	s, aiderPath := memtest.Fixture(t)
	deep := memtest.ClaudeLine(1, "user", `"fix the rounding"`, "") +
		`{"type":"user","sessionId":"` + memtest.TranscriptID + `","message":` + strings.Repeat("[", 2_000_000) + "\n" +
		memtest.ClaudeLine(2, "assistant", `[{"type":"text","text":"Fixed."}]`, "") +
		memtest.ClaudeLine(3, "user", `"now the taxes"`, "")
	path := memtest.WriteHistory(t, t.TempDir(), memtest.TranscriptID+".jsonl", []byte(deep))
	rep, err := Index(context.Background(), s, Options{Paths: []string{path, aiderPath}, Harnesses: harness.Registry{claude.Reader{}, aider.Reader{}}})
	if err != nil || rep.Skipped != 0 {
		t.Fatalf("index: %+v, %v", rep, err)
	}
	got := storedTurns(t, s, "claude-"+memtest.TranscriptID)
	if strings.Join(got, "|") != "0:fix the rounding|1:now the taxes" {
		t.Errorf("turns %q, want the lines around the deep one", got)
	}
	if len(sessionIDs(t, s)) < 2 {
		t.Errorf("sessions %v: the aider history beside it was not indexed", sessionIDs(t, s))
	}
}

// TestIndexSkipsOverlongLines: a line over the bound is skipped as it is
// read, before it is held whole, with a warning naming it; the lines
// around it are indexed, in a history read whole (a Claude transcript)
// and in one read a window at a time (aider's), or streamed (a large
// one); the aider history, appended to, is read again.
func TestIndexSkipsOverlongLines(t *testing.T) {
	for _, stream := range []int64{0, 1} {
		t.Run(fmt.Sprintf("streamed above %d", stream), func(t *testing.T) { skipsOverlongLines(t, stream) })
	}
}

func skipsOverlongLines(t *testing.T, stream int64) {
	s, _ := memtest.Fixture(t)
	dir := t.TempDir()
	long := strings.Repeat("x", 300<<10)
	transcript := memtest.ClaudeLine(1, "user", `"fix the rounding"`, "") +
		memtest.ClaudeLine(2, "user", `"`+long+`"`, "") +
		memtest.ClaudeLine(3, "user", `"now the taxes"`, "")
	claudePath := memtest.WriteHistory(t, dir, memtest.TranscriptID+".jsonl", []byte(transcript))
	history := "\n# aider chat started at 2026-07-19 08:15:00\n\n#### first question  \n\nfirst answer\n\n" +
		"#### " + long + "  \n\nanswer to the long one\n\n#### last question  \n\nlast answer\n"
	aiderPath := memtest.WriteHistory(t, dir, aider.HistoryFileName, []byte(history))
	rep, err := Index(context.Background(), s, Options{
		Paths:       []string{claudePath, aiderPath},
		Harnesses:   harness.Registry{claude.Reader{}, aider.Reader{}},
		limits:      harness.Limits{Line: 64 << 10},
		streamAbove: stream,
	})
	if err != nil || rep.Skipped != 0 {
		t.Fatalf("index: %+v, %v", rep, err)
	}
	want := []string{
		claudePath + ": 1 line longer than 65536 bytes (first at line 2), skipped",
		aiderPath + ": 1 line longer than 65536 bytes (first at line 8), skipped",
	}
	if strings.Join(rep.Problems, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems\n%s\nwant\n%s", strings.Join(rep.Problems, "\n"), strings.Join(want, "\n"))
	}
	if got := storedTurns(t, s, "claude-"+memtest.TranscriptID); strings.Join(got, "|") != "0:fix the rounding|1:now the taxes" {
		t.Errorf("claude turns %q, want the lines around the long one", got)
	}
	rows, err := memtest.RawDB(t, s).Query(`SELECT user FROM turns WHERE session_id LIKE 'aider-%' ORDER BY session_id, turn`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var users []string
	for rows.Next() {
		var u string
		if err := rows.Scan(&u); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(u, long[:1000]) {
			u = "the long line"
		}
		users = append(users, u)
	}
	if !strings.Contains(strings.Join(users, "|"), "first question") || !strings.Contains(strings.Join(users, "|"), "last question") || strings.Contains(strings.Join(users, "|"), "the long line") {
		t.Errorf("aider turns %q, want the questions around the long line and not it", users)
	}
	memtest.AppendFile(t, aiderPath, memtest.ThirdSession)
	rep, err = Index(context.Background(), s, Options{
		Paths:       []string{aiderPath},
		Harnesses:   harness.Registry{aider.Reader{}},
		limits:      harness.Limits{Line: 64 << 10},
		streamAbove: stream,
	})
	if err != nil || rep.Skipped != 0 || rep.NewTurns != 1 {
		t.Fatalf("index after an append: %+v, %v; want its one new turn", rep, err)
	}
	var n int
	memtest.RawDB(t, s).QueryRow(`SELECT count(*) FROM turns WHERE user LIKE 'Add rate limiting%'`).Scan(&n)
	if n != 1 {
		t.Errorf("the appended turn is stored %d times, want once", n)
	}
}

// TestIndexRefusesZstdBomb: a .zst rollout that decodes past the bound is
// refused, its decoded bytes counted and not kept, and the histories
// beside it are indexed.
func TestIndexRefusesZstdBomb(t *testing.T) {
	s, aiderPath := memtest.Fixture(t)
	var packed bytes.Buffer
	enc, err := zstd.NewWriter(&packed, zstd.WithEncoderLevel(zstd.SpeedFastest))
	if err != nil {
		t.Fatal(err)
	}
	meta := `{"timestamp":"2025-12-25T13:00:00.000Z","type":"session_meta","payload":{"id":"019b55c1-d022-7061-bbb9-b0c90708472b","cwd":"/home/u/app"}}` + "\n"
	enc.Write([]byte(meta))
	line := []byte(`{"timestamp":"2025-12-25T13:01:00.000Z","type":"event_msg","payload":{"type":"user_message","message":"again"}}` + "\n")
	for range (100 << 20) / len(line) {
		enc.Write(line)
	}
	if err := enc.Close(); err != nil {
		t.Fatal(err)
	}
	bomb := memtest.WriteHistory(t, t.TempDir(), "rollout-2025-12-25T22-45-23-019b55c1-d022-7061-bbb9-b0c90708472b.jsonl.zst", packed.Bytes())
	rep, err := Index(context.Background(), s, Options{
		Paths:     []string{bomb, aiderPath},
		Harnesses: harness.Registry{codex.Reader{}, claude.Reader{}, aider.Reader{}},
		limits:    harness.Limits{Decoded: 8 << 20},
	})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Skipped != 1 || len(rep.Problems) != 1 || !strings.Contains(rep.Problems[0], "decodes to more than 8 MB, skipped") {
		t.Fatalf("a %d-byte .zst of 100 MB: %+v, want it skipped past 8 MB", packed.Len(), rep)
	}
	if rep.NewTurns == 0 {
		t.Errorf("the aider history beside the bomb was not indexed: %+v", rep)
	}
}

// TestIndexReportsParseWarnings: a line nested past the decoder's bound
// was skipped in silence by 'deja index' (only 'deja parse' said so); now
// each history's parse warnings reach the report's warnings, counted per kind, and a
// history with more kinds than maxFileWarnings is told in that many lines
// and a count.
func TestIndexReportsParseWarnings(t *testing.T) {
	s, _ := memtest.Fixture(t)
	dir := t.TempDir()
	deep := strings.Repeat("[", 100_000)
	claudePath := memtest.WriteHistory(t, dir, memtest.TranscriptID+".jsonl", []byte(memtest.ClaudeLine(1, "user", `"fix the rounding"`, "")+
		`{"type":"user","sessionId":"`+memtest.TranscriptID+`","message":`+deep+"\n"+
		memtest.ClaudeLine(3, "assistant", `[{"type":"text","text":"Fixed."}]`, "")+
		memtest.ClaudeLine(4, "user", `"now the taxes"`, "")+
		`{"type":"user","sessionId":"`+memtest.TranscriptID+`","message":{"content":`+deep+"}}\n"))
	user := func(text string) string {
		return `{"timestamp":"2025-12-25T13:01:00.000Z","type":"event_msg","payload":{"type":"user_message","message":"` + text + `"}}` + "\n"
	}
	codexPath := memtest.WriteHistory(t, dir, "rollout-2025-12-25T13-00-00-019b55c1-d022-7061-bbb9-b0c90708472b.jsonl", []byte(
		`{"timestamp":"2025-12-25T13:00:00.000Z","type":"session_meta","payload":{"id":"019b55c1-d022-7061-bbb9-b0c90708472b","cwd":"/home/u/app"}}`+"\n"+
			user("first question")+
			`{"timestamp":"2025-12-25T13:01:00.000Z","type":"event_msg","payload":`+deep+"\n"+
			user("second question")))
	rep, err := Index(context.Background(), s, Options{Paths: []string{claudePath, codexPath}, Harnesses: harness.Registry{claude.Reader{}, codex.Reader{}}})
	if err != nil || rep.Skipped != 0 {
		t.Fatalf("index: %+v, %v", rep, err)
	}
	want := []string{
		claudePath + ": 2 lines nested deeper than 512 levels (first at line 2), skipped",
		codexPath + ": 1 line nested deeper than 512 levels (first at line 3), skipped",
	}
	if strings.Join(rep.Warnings, "\n") != strings.Join(want, "\n") || len(rep.Problems) != 0 {
		t.Errorf("warnings\n%s\nwant\n%s\nproblems %q, want none", strings.Join(rep.Warnings, "\n"), strings.Join(want, "\n"), rep.Problems)
	}
	if got := storedTurns(t, s, "claude-"+memtest.TranscriptID); strings.Join(got, "|") != "0:fix the rounding|1:now the taxes" {
		t.Errorf("claude turns %q, want the lines around the deep ones", got)
	}
	if rep.NewTurns != 4 {
		t.Errorf("%d turns written, want the claude transcript's 2 and the codex rollout's 2", rep.NewTurns)
	}

	// Thirty kinds of bad line: ten told, the other twenty counted.
	var many strings.Builder
	many.WriteString(memtest.ClaudeLine(1, "user", `"fix the rounding"`, ""))
	for i := range 30 {
		fmt.Fprintf(&many, `{"type":"kind%02d","sessionId":%q}`+"\n", i, memtest.TranscriptID)
	}
	manyPath := memtest.WriteHistory(t, t.TempDir(), memtest.TranscriptID+".jsonl", []byte(many.String()))
	rep, err = Index(context.Background(), s, Options{Paths: []string{manyPath}, Harnesses: harness.Registry{claude.Reader{}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Warnings) != maxFileWarnings+1 || rep.Warnings[0] != manyPath+`: 1 line of unknown type "kind00" (first at line 2), skipped` ||
		rep.Warnings[maxFileWarnings] != manyPath+": 20 more, not shown ('deja parse' lists them)" {
		t.Errorf("30 kinds of bad line reported as\n%s", strings.Join(rep.Warnings, "\n"))
	}
}

// TestShiftWarning: a parse that began some lines into a history names
// lines counted from the file's start, in both formats readers write.
func TestShiftWarning(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"2 lines not valid JSON (first at line 7), skipped", "2 lines not valid JSON (first at line 107), skipped"},
		{"line 7: invalid JSON skipped", "line 107: invalid JSON skipped"},
		{`1 line of unknown type "line 3: (first at line 4), skipped" (first at line 7), skipped`, `1 line of unknown type "line 3: (first at line 4), skipped" (first at line 107), skipped`},
		{"invalid UTF-8 replaced with U+FFFD", "invalid UTF-8 replaced with U+FFFD"},
	} {
		if got := shiftWarning(c.in, 100); got != c.want {
			t.Errorf("shiftWarning(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestIndexOfALargeHistoryReadWhole: a history read whole and larger
// than a window has its bytes let go once parsed, when the file holds no
// known session (letGo); read again, grown, and rebuilt with --full, it
// keeps them, and each run stores every turn once.
func TestIndexOfALargeHistoryReadWhole(t *testing.T) {
	s, _ := memtest.Fixture(t)
	var b strings.Builder
	n := 0
	for b.Len() <= windowSize {
		b.WriteString(memtest.ClaudeLine(2*n, "user", `"question `+strings.Repeat("why ", 200)+`"`, ""))
		b.WriteString(memtest.ClaudeLine(2*n+1, "assistant", `[{"type":"text","text":"answer"}]`, ""))
		n++
	}
	path := memtest.WriteHistory(t, t.TempDir(), memtest.TranscriptID+".jsonl", []byte(b.String()))
	index_ := func(full bool, want int) {
		t.Helper()
		rep, err := Index(context.Background(), s, Options{Paths: []string{path}, Harnesses: harness.Registry{claude.Reader{}}, Full: full})
		if err != nil || rep.Skipped != 0 {
			t.Fatalf("index: %+v, %v", rep, err)
		}
		if got := len(storedTurns(t, s, "claude-"+memtest.TranscriptID)); got != want {
			t.Fatalf("%d turns stored, want %d", got, want)
		}
	}
	index_(false, n)
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(memtest.ClaudeLine(2*n, "user", `"one more"`, ""))
	f.Close()
	index_(false, n+1)
	index_(true, n+1)
}
