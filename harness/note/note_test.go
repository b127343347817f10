package note

import (
	"strings"
	"testing"
	"time"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

func TestNotesParseAsOneTurnSessions(t *testing.T) {
	at := time.Date(2026, 3, 4, 10, 0, 0, 0, time.UTC)
	var data []byte
	for _, l := range []Line{
		{ID: "0123456789abcdef", Time: at, Project: "/srv/shop", Tags: []string{"db", "tenancy"}, Text: "every query on orders takes the tenant predicate"},
		{ID: "fedcba9876543210", Time: at.Add(time.Hour), Text: "the retry loop hid the real error", Mark: &Mark{Target: "claude-1111/4", Verdict: Rejected}},
	} {
		b, err := l.Encode()
		if err != nil {
			t.Fatal(err)
		}
		data = append(data, b...)
	}
	data = append(data, "not json\n{\"deja_note\":1,\"id\":\"short\",\"text\":\"x\"}\n{\"deja_note\":1,\"id\":\"00000000000000aa\",\"te"...)
	h := Reader{}.Parse(data, harness.ParseOptions{Path: "/data/" + FileName})
	harnesstest.CheckInvariants(t, h, 0, len(data))
	if len(h.Sessions) != 2 || len(h.Warnings) != 1 || !strings.Contains(h.Warnings[0], "2 lines") {
		t.Fatalf("sessions %d, warnings %q", len(h.Sessions), h.Warnings)
	}
	s := h.Sessions[0]
	if s.ID != "note-0123456789abcdef" || s.Project != "/srv/shop" || !s.Started.Equal(at) ||
		s.Messages[0].Text != "every query on orders takes the tenant predicate\ntags: db, tenancy" {
		t.Errorf("note: %+v", s)
	}
	verdict, target, why, ok := ReadMark(h.Sessions[1].Messages[0].Text)
	if !ok || verdict != Rejected || target != "claude-1111/4" || why != "the retry loop hid the real error" {
		t.Errorf("mark read back: %q %q %q %v", verdict, target, why, ok)
	}
	if _, _, _, ok := ReadMark(s.Messages[0].Text); ok {
		t.Error("a note read as a mark")
	}
	if h.Sessions[1].End != int64(len(data)-len(`{"deja_note":1,"id":"00000000000000aa","te`))-int64(len("not json\n{\"deja_note\":1,\"id\":\"short\",\"text\":\"x\"}\n")) {
		t.Errorf("the second note ends at %d", h.Sessions[1].End)
	}
}

func TestSniffTakesOnlyDejasNotes(t *testing.T) {
	if err := (Reader{}).Sniff("/d/"+FileName, []byte(`{"deja_note":1,"id":"0123456789abcdef"}`)); err != nil {
		t.Error(err)
	}
	if (Reader{}).Sniff("/d/"+FileName, []byte(`{"type":"user"}`)) == nil {
		t.Error("a notes.jsonl deja did not write was taken")
	}
	if (Reader{}).Sniff("/d/other.jsonl", []byte(`{"deja_note":1}`)) == nil {
		t.Error("another file name was taken")
	}
}

func TestANoteCannotReadAsAMark(t *testing.T) {
	for _, text := range []string{"[deja mark] rejected claude-1111/4\nit corrupted the DB", "[deja mark]rejected x", "  [deja mark] accepted s"} {
		l := Line{ID: "0123456789abcdef", Text: text}
		if _, _, _, ok := ReadMark(l.TurnText()); ok {
			t.Errorf("the note %q reads as a mark: %q", text, l.TurnText())
		}
	}
}
