package hermes

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// newStore writes a store of testdata/schema.sql and the statements
// given, as Hermes's own would hold them, and returns its path.
func newStore(t testing.TB, statements ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), storeName)
	harnesstest.SQLiteStore(t, path, append([]string{string(harnesstest.ReadFixture(t, "schema.sql"))}, statements...)...)
	return path
}

const oneSession = `INSERT INTO sessions (id, source, started_at, cwd) VALUES ('20260801_093000_a1b2c3d4', 'cli', 1785576600, '/p'), ('20260801_100000_b2c3d4e5', 'cli', 1785578400, '/q');
INSERT INTO messages (session_id, role, content, timestamp) VALUES ('20260801_093000_a1b2c3d4', 'user', 'first', 1785576601), ('20260801_093000_a1b2c3d4', 'assistant', 'ok', 1785576602), ('20260801_100000_b2c3d4e5', 'user', 'other', 1785578401);`

// markers reads the store and returns each session's marker by ID, and
// the sessions read.
func markers(t *testing.T, path string, unchanged func(id, marker string) bool) (map[string]string, *harness.History) {
	t.Helper()
	h, err := Reader{}.Read(context.Background(), path, harness.ParseOptions{Path: path, Unchanged: unchanged})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, s := range h.Sessions {
		out[s.ID] = s.Marker
	}
	return out, h
}

// TestIncremental reads a store again as the indexer does: sessions whose
// marker is known come back unread; a message appended, or a turn
// rewound (/undo sets active = 0 on rows already there), changes the
// marker of its session alone.
func TestIncremental(t *testing.T) {
	path := newStore(t, oneSession)
	first, _ := markers(t, path, nil)
	known := func(id, m string) bool { return first[id] == m }
	again, h := markers(t, path, known)
	if len(again) != 2 {
		t.Fatalf("%d sessions on the second read", len(again))
	}
	for _, s := range h.Sessions {
		if len(s.Messages) != 0 || s.Marker == "" {
			t.Errorf("unchanged session %s read again: %+v", s.ID, s)
		}
	}
	harnesstest.SQLiteStore(t, path, `INSERT INTO messages (session_id, role, content, timestamp) VALUES ('20260801_093000_a1b2c3d4', 'user', 'second', 1785576700)`)
	_, h = markers(t, path, known)
	if got := texts(h, "hermes-20260801_093000_a1b2c3d4"); got != "first|ok|second" {
		t.Errorf("after an append read %q", got)
	}
	if got := texts(h, "hermes-20260801_100000_b2c3d4e5"); got != "" {
		t.Errorf("the other session was read again: %q", got)
	}
	grown, _ := markers(t, path, nil)
	harnesstest.SQLiteStore(t, path, `UPDATE messages SET active = 0 WHERE content = 'second'`)
	_, h = markers(t, path, func(id, m string) bool { return grown[id] == m })
	if got := texts(h, "hermes-20260801_093000_a1b2c3d4"); got != "first|ok" {
		t.Errorf("after a rewind read %q", got)
	}
}

// texts joins the texts of the session id's messages.
func texts(h *harness.History, id string) string {
	for _, s := range h.Sessions {
		if s.ID == id {
			var out []string
			for _, m := range s.Messages {
				out = append(out, m.Text)
			}
			return strings.Join(out, "|")
		}
	}
	return "(none)"
}

// TestHostileStore reads stores no Hermes wrote: a view in place of a
// table is refused before it is read; values of any type in any column,
// ids of another shape and tool calls that are not JSON are read without
// a panic, what cannot be a session refused.
func TestHostileStore(t *testing.T) {
	path := filepath.Join(t.TempDir(), storeName)
	harnesstest.SQLiteStore(t, path, `CREATE TABLE sessions (id TEXT, started_at REAL);
CREATE VIEW messages AS WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT 's' AS session_id, 'user' AS role, 'x' AS content, i AS timestamp FROM n;`)
	_, err := Reader{}.Read(context.Background(), path, harness.ParseOptions{})
	if !errors.Is(err, errNotPlain) {
		t.Errorf("a view read as messages: %v", err)
	}

	path = newStore(t, `INSERT INTO sessions (id, source, started_at, cwd, model_config) VALUES
 ('20260801_093000_a1b2c3d4', 'cli', 'yesterday', 42, '{not json'),
 ('bad id; rm -rf /', 'cli', 1, NULL, NULL),
 (7, 'cli', 1e300, NULL, '{"_delegate_from": 7}');
INSERT INTO messages (session_id, role, content, tool_calls, tool_call_id, timestamp, active) VALUES
 ('20260801_093000_a1b2c3d4', 'user', x'68690a', NULL, NULL, 'noon', 2),
 ('20260801_093000_a1b2c3d4', 'assistant', 12, '[{"function": {"name": "terminal", "arguments": 5}}, 3, null]', NULL, -1, 1),
 ('20260801_093000_a1b2c3d4', 'assistant', NULL, 'not json', NULL, 1e400, 1),
 ('20260801_093000_a1b2c3d4', 'tool', '{"exit_code": 1e30}', NULL, NULL, 2, 1),
 (7, 'user', 'seven', NULL, NULL, 3, 1);`)
	h, err := harness.ReadStore(context.Background(), Reader{}, path, harness.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	harnesstest.CheckInvariants(t, h, 0, 0)
	harnesstest.CheckTurns(t, h, IDPrefix)
	if len(h.Refused) != 1 || !strings.Contains(h.Refused[0], "hermes-bad") || strings.Contains(h.Refused[0], "rm -rf") {
		t.Errorf("refused %q", h.Refused)
	}
	if got := texts(h, "hermes-20260801_093000_a1b2c3d4"); got != "hi|12" {
		t.Errorf("read %q", got)
	}
	if got := texts(h, "hermes-7"); got != "seven" {
		t.Errorf("read %q of a session with a numeric id", got)
	}
}

func TestResume(t *testing.T) {
	harnesstest.CheckResumes(t, Reader{}, []harnesstest.Resume{
		{"hermes-20260801_093000_a1b2c3d4", "/home/u/shop", "cd /home/u/shop && hermes --resume 20260801_093000_a1b2c3d4"},
		{"hermes-work.20260310_140000_0f1e2d3c", "", "hermes --profile work --resume 20260310_140000_0f1e2d3c"},
		{"hermes-cron_7d1d442b1611_20260802_000000", "/home/u/my notes", "cd '/home/u/my notes' && hermes --resume cron_7d1d442b1611_20260802_000000"},
		{"hermes-a.b.c", "", ""},
		{"claude-20260801_093000_a1b2c3d4", "", ""},
		{"hermes-", "", ""},
	})
}

func TestValidID(t *testing.T) {
	for id, want := range map[string]bool{
		"hermes-20260801_093000_a1b2c3d4":          true,
		"hermes-cron_7d1d442b1611_20260802_000000": true,
		"hermes-work.20260310_140000_0f1e2d3c":     true,
		"hermes-work.":                             false,
		"hermes-.x":                                false,
		"hermes-x y":                               false,
		"hermes-_x":                                false,
		"hermes-" + strings.Repeat("a", 129):       false,
	} {
		if got := (Reader{}).ValidID(id); got != want {
			t.Errorf("ValidID(%q) = %v", id, got)
		}
	}
}
