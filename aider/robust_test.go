package aider

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

const small = "\n# aider chat started at 2026-07-17 09:00:00\n\n#### Show me the failing query  \n\nThe query misses the tenant predicate.\n\n> Applied edit to query.go  \n"

func parseSmall(t *testing.T, data string) *History {
	t.Helper()
	return Parse([]byte(data), Options{Path: fixturePath, Location: fixtureZone})
}

func messagesOf(h *History) []string {
	var out []string
	for _, s := range h.Sessions {
		for _, m := range s.Messages {
			out = append(out, string(m.Role)+": "+m.Text)
		}
	}
	return out
}

func TestCRLFAndBOMReadAsLF(t *testing.T) {
	want := parseSmall(t, small)
	crlf := "\xEF\xBB\xBF" + strings.ReplaceAll(small, "\n", "\r\n")
	got := parseSmall(t, crlf)
	if !reflect.DeepEqual(messagesOf(got), messagesOf(want)) {
		t.Errorf("CRLF+BOM messages %q, want %q", messagesOf(got), messagesOf(want))
	}
	if got.Stripped {
		t.Error("CRLF file taken for whitespace-stripped")
	}
	if len(got.Sessions) != 1 || !reflect.DeepEqual(got.Sessions[0].Records, want.Sessions[0].Records) {
		t.Errorf("records differ: %+v", got.Sessions)
	}
}

func TestInvalidUTF8AndNULAreCleaned(t *testing.T) {
	data := strings.Replace(small, "failing query", "failing \xff\xfe qu\x00ery", 1)
	h := parseSmall(t, data)
	msgs := messagesOf(h)
	if len(msgs) != 2 || msgs[0] != "user: Show me the failing \uFFFD query" {
		t.Fatalf("messages = %q", msgs)
	}
	want := []string{"invalid UTF-8 replaced with U+FFFD", "NUL bytes removed"}
	if !reflect.DeepEqual(h.Warnings, want) {
		t.Errorf("warnings = %q, want %q", h.Warnings, want)
	}
}

func TestHugeLineAndNoFinalNewline(t *testing.T) {
	huge := strings.Repeat("x", 10<<20)
	data := small + "\n#### " + huge + "  \n\n" + huge + "\n\n#### last words  "
	h := parseSmall(t, data)
	msgs := h.Sessions[0].Messages
	if len(msgs) != 5 {
		t.Fatalf("%d messages, want 5", len(msgs))
	}
	if len(msgs[2].Text) != len(huge) || len(msgs[3].Text) != len(huge) {
		t.Errorf("huge lines cut: %d and %d bytes", len(msgs[2].Text), len(msgs[3].Text))
	}
	if msgs[4].Text != "last words" {
		t.Errorf("last message without final newline = %q", msgs[4].Text)
	}
}

func TestTruncatedFileKeepsWhatWasWritten(t *testing.T) {
	full, err := os.ReadFile("testdata/fence_backticks_long.md")
	if err != nil {
		t.Fatal(err)
	}
	for cut := 0; cut <= len(full); cut++ {
		h := Parse(full[:cut], Options{Path: fixturePath})
		for _, s := range h.Sessions {
			if s.End > int64(cut) || s.Offset > s.End {
				t.Fatalf("cut at %d: session range %d..%d", cut, s.Offset, s.End)
			}
		}
	}
}

func TestBinaryFileIsSkipped(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "image.md")
	png := append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), bytes.Repeat([]byte{0, 1, 2, 3}, 512)...)
	if err := os.WriteFile(bin, png, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ParseFile(bin, Options{}); err == nil || !strings.Contains(err.Error(), "not a text file") {
		t.Errorf("binary file: err = %v, want ErrBinary", err)
	}
	text := filepath.Join(dir, ".aider.chat.history.md")
	if err := os.WriteFile(text, []byte(strings.Replace(small, "query.go", "query\x00.go", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	h, err := ParseFile(text, Options{})
	if err != nil {
		t.Fatalf("history with a stray NUL: %v", err)
	}
	if got := h.Sessions[0].Records[0].Value; got != "query.go" {
		t.Errorf("record = %q", got)
	}
	bom := filepath.Join(dir, "bom.md")
	if err := os.WriteFile(bom, []byte("\xEF\xBB\xBF#### a question with a stray \x00  \n\nan answer\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if h, err := ParseFile(bom, Options{}); err != nil || len(h.Sessions) != 1 {
		t.Errorf("headerless history with a BOM and a NUL: %v", err)
	}
	if _, err := ParseFile(dir, Options{}); err == nil {
		t.Error("a directory parsed without error")
	}
}

func TestOffsetParseContinuesIDsAndOffsets(t *testing.T) {
	data, err := os.ReadFile("testdata/header_same_second.md")
	if err != nil {
		t.Fatal(err)
	}
	whole := Parse(data, Options{Path: fixturePath, Location: fixtureZone})
	if len(whole.Sessions) != 3 {
		t.Fatalf("%d sessions", len(whole.Sessions))
	}
	last := whole.Sessions[2]
	taken := map[string]bool{whole.Sessions[0].ID: true, whole.Sessions[1].ID: true}
	tail := Parse(data[last.Offset:], Options{Path: fixturePath, Location: fixtureZone, Offset: last.Offset,
		FirstOrdinal: 3, Reserved: func(id string) bool { return taken[id] }})
	if len(tail.Sessions) != 1 {
		t.Fatalf("tail has %d sessions", len(tail.Sessions))
	}
	got := tail.Sessions[0]
	if got.ID != last.ID || got.Ordinal != 3 || got.Offset != last.Offset || got.End != last.End {
		t.Errorf("tail session %s #%d %d..%d, want %s #3 %d..%d", got.ID, got.Ordinal, got.Offset, got.End, last.ID, last.Offset, last.End)
	}
}

func TestReservedIDsAreNeverReused(t *testing.T) {
	// A history deleted and recreated at the same path: a kept session's
	// ID must not be handed to a new session (the bug behind #4332).
	old := parseSmall(t, "\n# aider chat started at not a time\n\n#### kept  \n")
	if old.Sessions[0].ID != "aider-"+PathHash(fixturePath)+"-1" {
		t.Fatalf("id = %s", old.Sessions[0].ID)
	}
	taken := map[string]bool{old.Sessions[0].ID: true}
	h := Parse([]byte("\n# aider chat started at still not a time\n\n#### new  \n"),
		Options{Path: fixturePath, Reserved: func(id string) bool { return taken[id] }})
	if got, want := h.Sessions[0].ID, old.Sessions[0].ID+"-2"; got != want {
		t.Errorf("recreated file's session = %s, want %s", got, want)
	}
}

func TestSessionIDShape(t *testing.T) {
	at := time.Date(2026, 7, 17, 9, 0, 0, 0, time.UTC)
	if got := SessionID("0123456789ab", at, 1); got != "aider-0123456789ab-20260717T090000" {
		t.Errorf("SessionID = %s", got)
	}
	if got := SessionID("0123456789ab", time.Time{}, 4); got != "aider-0123456789ab-4" {
		t.Errorf("SessionID without time = %s", got)
	}
	if h := PathHash("/home/dev/proj/.aider.chat.history.md"); len(h) != 12 || h == PathHash("/home/dev/proj2/.aider.chat.history.md") {
		t.Errorf("PathHash = %s", h)
	}
}

func TestResolveCommand(t *testing.T) {
	cases := []struct {
		word, name string
		ambiguous  bool
		ok         bool
	}{
		{"ex", "exit", false, true},
		{"ru", "run", false, true},
		{"te", "test", false, true},
		{"g", "git", false, true},
		{"model", "model", false, true},
		{"models", "models", false, true},
		{"t", "", true, true},
		{"e", "", true, true},
		{"usr", "", false, false},
		{"READ", "", false, false},
		{"", "", true, true},
	}
	for _, c := range cases {
		name, amb, ok := resolveCommand(c.word)
		if name != c.name || amb != c.ambiguous || ok != c.ok {
			t.Errorf("resolveCommand(%q) = %q %v %v, want %q %v %v", c.word, name, amb, ok, c.name, c.ambiguous, c.ok)
		}
	}
	for i := 1; i < len(commandNames); i++ {
		if commandNames[i-1] >= commandNames[i] {
			t.Fatalf("commandNames not sorted at %q", commandNames[i])
		}
	}
}
