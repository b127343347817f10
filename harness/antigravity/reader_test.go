package antigravity

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// readFixture unpacks a txtar fixture and reads the one conversation in
// it, as the indexer would, checking every reader's invariants.
func readFixture(t *testing.T, fixture string) *harness.History {
	t.Helper()
	root := harnesstest.Unpack(t, fixture, nil)
	convs, _ := filepath.Glob(filepath.Join(root, "*"))
	if len(convs) != 1 {
		t.Fatalf("%s holds %d conversations, want 1", fixture, len(convs))
	}
	if err := (Reader{}).Sniff(convs[0], nil); err != nil {
		t.Fatalf("Sniff refuses %s: %v", convs[0], err)
	}
	h, err := harness.ReadStore(context.Background(), Reader{}, convs[0], harness.ParseOptions{Path: convs[0]})
	if err != nil {
		t.Fatal(err)
	}
	harnesstest.CheckInvariants(t, h, 0, 0)
	for i := range h.Sessions {
		h.Sessions[i].Marker = "" // the files' times are the test's
	}
	return h
}

func TestGolden(t *testing.T) {
	harnesstest.CheckGoldenFiles(t, harnesstest.Fixtures(t, 2, "*.txtar"), readFixture)
}

// TestNoticesAreNeverPrompts holds the rule FORMATS.md gives: the user
// typed none of the editor's notices, so a conversation with only
// notices has no prompt.
func TestNoticesAreNeverPrompts(t *testing.T) {
	h := readFixture(t, "testdata/notices.txtar")
	s := h.Sessions[0]
	if len(s.Messages) != 2 {
		t.Fatalf("got %d messages, want the 2 notices", len(s.Messages))
	}
	for _, m := range s.Messages {
		if m.Role != harness.Assistant || m.Turn != -1 {
			t.Errorf("notice %q read as %s, turn %d", m.Text, m.Role, m.Turn)
		}
	}
	if !strings.HasPrefix(s.Messages[0].Text, "[Notice] All your subagents") {
		t.Errorf("notices not in time order: first %q", s.Messages[0].Text)
	}
	if len(h.Warnings) != 1 || !strings.Contains(h.Warnings[0], "2 files") {
		t.Errorf("warnings %q, want one for the 2 files that are not notices", h.Warnings)
	}
}

// TestPartialLastLine: a transcript line still being written is no
// warning, and a read once it is whole has the prompt.
func TestPartialLastLine(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "3f2504e0-4f89-41d3-9a0c-0305e82c3301")
	path := filepath.Join(dir, generated, filepath.FromSlash(transcript))
	line := `{"source":"USER_EXPLICIT","created_at":"2026-07-17T09:00:00Z","content":"<USER_REQUEST>hello</USER_REQUEST>"}`
	harnesstest.WriteFile(t, path, line[:40])
	h, err := ReadConversation(context.Background(), dir, harness.ParseOptions{})
	if err != nil || len(h.Warnings) > 0 || len(h.Sessions[0].Messages) > 0 {
		t.Fatalf("partial line: %v, warnings %q, messages %v", err, h.Warnings, h.Sessions[0].Messages)
	}
	harnesstest.WriteFile(t, path, line+"\n")
	h, err = ReadConversation(context.Background(), dir, harness.ParseOptions{})
	if err != nil || len(h.Sessions[0].Messages) != 1 || h.Sessions[0].Messages[0].Text != "hello" {
		t.Fatalf("whole line: %v, %+v", err, h.Sessions[0].Messages)
	}
}

// TestUnchangedIsNotRead: the marker changes when a notice comes, and a
// conversation whose marker the store holds is returned unread.
func TestUnchangedIsNotRead(t *testing.T) {
	root := harnesstest.Unpack(t, "testdata/notices.txtar", nil)
	dir := filepath.Join(root, "feee38e8-7e95-499f-bc12-62ca950ad77a")
	h, err := ReadConversation(context.Background(), dir, harness.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	first := h.Sessions[0].Marker
	known := func(id, marker string) bool {
		return id == IDPrefix+"feee38e8-7e95-499f-bc12-62ca950ad77a" && marker == first
	}
	h, _ = ReadConversation(context.Background(), dir, harness.ParseOptions{Unchanged: known})
	if len(h.Sessions) != 1 || h.Sessions[0].Messages != nil {
		t.Fatalf("an unchanged conversation was read: %+v", h.Sessions)
	}
	harnesstest.WriteFile(t, filepath.Join(dir, generated, messageDir, "new.json"), `{"sender":"system","timestamp":"2026-04-20T00:00:00Z","content":"[Notice] later"}`)
	h, _ = ReadConversation(context.Background(), dir, harness.ParseOptions{Unchanged: known})
	if h.Sessions[0].Marker == first || len(h.Sessions[0].Messages) != 3 {
		t.Fatalf("a new notice left the marker %q and %d messages", h.Sessions[0].Marker, len(h.Sessions[0].Messages))
	}
}

func TestSniffAndIDs(t *testing.T) {
	root := harnesstest.Unpack(t, "testdata/notices.txtar", nil)
	conv := filepath.Join(root, "feee38e8-7e95-499f-bc12-62ca950ad77a")
	pb := harnesstest.WriteFile(t, filepath.Join(root, "conversations", "feee38e8-7e95-499f-bc12-62ca950ad77a.pb"), "\x8f\x02\xa1")
	notUUID := filepath.Join(root, "tempmediaStorage")
	if err := os.MkdirAll(filepath.Join(notUUID, generated), 0o755); err != nil {
		t.Fatal(err)
	}
	var r Reader
	for path, want := range map[string]bool{conv: true, pb: false, notUUID: false, filepath.Join(conv, generated): false} {
		if got := r.Sniff(path, nil) == nil; got != want {
			t.Errorf("Sniff(%s) = %v, want %v", path, got, want)
		}
	}
	if _, err := ReadConversation(context.Background(), notUUID, harness.ParseOptions{}); err == nil {
		t.Error("a folder not named by a conversation id was read")
	}
	for id, want := range map[string]bool{
		"antigravity-feee38e8-7e95-499f-bc12-62ca950ad77a":   true,
		"antigravity-feee38e8":                               false,
		"feee38e8-7e95-499f-bc12-62ca950ad77a":               false,
		"antigravity-../feee38e8-7e95-499f-bc12-62ca950ad77": false,
	} {
		if r.ValidID(id) != want {
			t.Errorf("ValidID(%q) = %v", id, !want)
		}
	}
	if r.ResumeCommand("antigravity-feee38e8-7e95-499f-bc12-62ca950ad77a", "/p") != "" || r.ResumeRefusal("", "") == "" {
		t.Error("Antigravity has no resume command, and says why")
	}
}
