package dsh

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// TestSniff: a log is claimed by its generation's file name and its
// header; Pi's session files, whose header is also of type "session",
// are not, nor are the files beside a log.
func TestSniff(t *testing.T) {
	header := `{"type":"session","version":2,"id":"session-6f0d2c4e-8b1a-4c3e-9d5f-2a7b8c9d0e1f","createdAt":1787320263519,"cwd":"/home/dev/app","isSeeded":false,"delegationDepth":0}` + "\n"
	piHeader := `{"type":"session","version":3,"id":"6f0d2c4e-8b1a-4c3e-9d5f-2a7b8c9d0e1f","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/home/dev/app"}` + "\n"
	dir := fixtureProject + "/session-6f0d2c4e-8b1a-4c3e-9d5f-2a7b8c9d0e1f/"
	for _, c := range []struct {
		path, head string
		ok         bool
	}{
		{dir + "session.jsonl", header, true},
		{dir + "session.v2.jsonl", header, true},
		{dir + "session.v12.jsonl", header, true},
		{dir + "session.jsonl.zstd", "\x28\xb5\x2f\xfd\x04\x00", true},
		{dir + "session.v2.jsonl.zstd", header, true},
		{dir + "session.v0.jsonl", header, false},
		{dir + "session.v02.jsonl", header, false},
		{dir + "session.V2.jsonl", header, false},
		{dir + "session.jsonl", piHeader, false},
		{dir + "session.jsonl", `{"type":"user/message","seq":0}` + "\n", false},
		{dir + "session.jsonl", "\x28\xb5\x2f\xfd\x04\x00", false},
		{dir + "session.lock", header, false},
		{"/home/dev/.pi/agent/sessions/--home-dev-app--/2026-01-01T00-00-00-000Z_6f0d2c4e-8b1a-4c3e-9d5f-2a7b8c9d0e1f.jsonl", header, false},
	} {
		if err := (Reader{}).Sniff(c.path, []byte(c.head)); (err == nil) != c.ok {
			t.Errorf("Sniff(%s, %.40q) = %v, want claimed %v", c.path, c.head, err, c.ok)
		}
	}
}

func TestValidID(t *testing.T) {
	for id, ok := range map[string]bool{
		"dsh-6f0d2c4e-8b1a-4c3e-9d5f-2a7b8c9d0e1f": true,
		"dsh-child_01":                   true,
		"dsh-":                           false,
		"dsh-a b":                        false,
		"dsh-" + strings.Repeat("a", 65): false,
		"pi-6f0d2c4e-8b1a-4c3e-9d5f-2a7b8c9d0e1f":          false,
		"dsh-session-6f0d2c4e-8b1a-4c3e-9d5f-2a7b8c9d0e1f": true,
	} {
		if got := (Reader{}).ValidID(id); got != ok {
			t.Errorf("ValidID(%q) = %v, want %v", id, got, ok)
		}
	}
}

// TestNoResume: dsh has no resume command, and the refusal says why.
func TestNoResume(t *testing.T) {
	harnesstest.CheckResumes(t, Reader{}, []harnesstest.Resume{
		{"dsh-6f0d2c4e-8b1a-4c3e-9d5f-2a7b8c9d0e1f", "/home/dev/app", ""},
	})
	var r harness.ResumeRefuser = Reader{}
	if why := r.ResumeRefusal("dsh-6f0d2c4e-8b1a-4c3e-9d5f-2a7b8c9d0e1f", "/home/dev/app"); !strings.Contains(why, "no command") {
		t.Errorf("refusal %q", why)
	}
}

// TestIDFromFolder: a log read from after its header (or whose header
// was lost) is named by its session folder.
func TestIDFromFolder(t *testing.T) {
	data := harnesstest.ReadFixture(t, "windows.jsonl")
	_, rest, _ := strings.Cut(string(data), "\n")
	h := Parse([]byte(rest), harness.ParseOptions{Path: fixturePath("d4c3b2a1-0f9e-4d8c-b7a6-5f4e3d2c1b0a.jsonl")})
	if len(h.Sessions) != 1 || h.Sessions[0].ID != "dsh-d4c3b2a1-0f9e-4d8c-b7a6-5f4e3d2c1b0a" {
		t.Fatalf("sessions %+v", h.Sessions)
	}
}

// TestHeaderIDOfAnotherShape: a header whose id (or parentSession) no
// dsh session could have, a control character, a space, a path, 65
// letters, names the session from its folder and links no parent,
// saying so, rather than giving an ID that deja refuses and losing the
// session's turns.
func TestHeaderIDOfAnotherShape(t *testing.T) {
	prompt := `{"type":"user/message","seq":1,"time":1787320263580,"data":{"role":"user","id":"m","content":[{"type":"text","text":"why"}],"source":{"kind":"user"}}}` + "\n"
	path := fixturePath("d4c3b2a1-0f9e-4d8c-b7a6-5f4e3d2c1b0a.jsonl")
	for _, id := range []string{"\x1b[2J", "two words", "../../etc", strings.Repeat("a", 65), "session-\u00e9"} {
		head, _ := json.Marshal(map[string]any{"type": "session", "version": 2, "id": id, "parentSession": id, "createdAt": 1787320263519})
		h := Parse(append(append(head, '\n'), prompt...), harness.ParseOptions{Path: path})
		if len(h.Sessions) != 1 {
			t.Fatalf("id %q: %d sessions", id, len(h.Sessions))
		}
		s := h.Sessions[0]
		if s.ID != "dsh-d4c3b2a1-0f9e-4d8c-b7a6-5f4e3d2c1b0a" || s.Parent != "" || len(s.Messages) != 1 {
			t.Errorf("id %q: session %q, parent %q, %d messages; want it named from its folder, no parent, its prompt", id, s.ID, s.Parent, len(s.Messages))
		}
		if len(h.Warnings) != 2 {
			t.Errorf("id %q: warnings %v, want one for the id and one for the parent", id, h.Warnings)
		}
	}
}
