package harness

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestClipOutputKeepsBothEnds(t *testing.T) {
	if got := ClipOutput("ok\n"); got != "ok" {
		t.Fatalf("short output: %q", got)
	}
	var b strings.Builder
	b.WriteString("FIRST LINE\n")
	for i := range 400 {
		b.WriteString(strings.Repeat("é", i%7+1) + " noise line\n")
	}
	b.WriteString("error: the last line says why\n")
	got := StoredOutput(ClipOutput(b.String()))
	if !strings.HasPrefix(got, "FIRST LINE\n") || !strings.HasSuffix(got, "error: the last line says why") {
		t.Fatalf("ends lost: %q … %q", got[:40], got[len(got)-40:])
	}
	if !strings.Contains(got, "lines, ") || !strings.Contains(got, "left out") {
		t.Fatalf("no note of what was left out: %q", got)
	}
	if len(got) > OutputHead+OutputTail+80 || !utf8.ValidString(got) {
		t.Fatalf("clipped to %d bytes, valid UTF-8 %v", len(got), utf8.ValidString(got))
	}
	if err := CheckOutcome(Record{Kind: CommandRecord, Value: "x", Outcome: Outcome{Status: Failed, Exit: ExitStatus(2), Output: got}}); err != nil {
		t.Fatal(err)
	}
}

func TestClipOutputNeverSplitsACharacter(t *testing.T) {
	// One long line of three-byte characters: no line end to cut at.
	got := StoredOutput(strings.Repeat("界", 2000))
	if !utf8.ValidString(got) {
		t.Fatalf("invalid UTF-8 after clipping")
	}
}

func TestClipSpan(t *testing.T) {
	if s, cut := ClipSpan("old text"); s != "old text" || cut {
		t.Fatalf("short span: %q %v", s, cut)
	}
	s, cut := StoredSpan(strings.Repeat("line of code\n", 3000))
	if !cut || len(s) > SpanMax+80 {
		t.Fatalf("long span: %d bytes, cut %v", len(s), cut)
	}
}

func TestCheckOutcomeRefuses(t *testing.T) {
	for name, r := range map[string]Record{
		"status":       {Kind: CommandRecord, Value: "x", Outcome: Outcome{Status: "maybe"}},
		"exit":         {Kind: CommandRecord, Value: "x", Outcome: Outcome{Status: Succeeded, Exit: ExitStatus(1)}},
		"output":       {Kind: CommandRecord, Value: "x", Outcome: Outcome{Output: strings.Repeat("a", ReadOutput+100)}},
		"command span": {Kind: CommandRecord, Value: "x", Span: Span{Old: "a"}},
		"whole":        {Kind: FileRecord, Value: "f", Span: Span{Old: "a", New: "b", Whole: true}},
	} {
		if CheckOutcome(r) == nil {
			t.Errorf("%s: accepted %+v", name, r)
		}
	}
}
