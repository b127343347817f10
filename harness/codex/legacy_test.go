package codex

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deja-dev/deja/harness"
)

// legacyFixture is a first-generation rollout (§2.2, 1) in the shape of the
// corpus's X1: one object, the session first, chat-completions items with
// tool_calls whose arguments are JSON in a string, and reasoning that is
// not answer text.
const legacyFixture = `{
  "session": {
    "timestamp": "2025-08-23T11:03:20.415Z",
    "id": "0418f71e-beb0-474c-a03d-1719a72e64cc",
    "instructions": ""
  },
  "items": [
    {"role": "user", "content": [{"type": "text", "text": "<environment_context>\n<cwd>/home/u/ocodex</cwd>\n</environment_context>"}]},
    {"role": "user", "content": [{"type": "text", "text": "why does cli_stream fail?"}]},
    {"role": "assistant", "content": "", "reasoning": "We should list the tree",
     "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "shell", "arguments": "{\"command\":[\"bash\",\"-lc\",\"ls -R\"]}"}}]},
    {"role": "assistant", "content": "The fixture server is not started before the test.",
     "tool_calls": [{"id": "call_2", "type": "function", "function": {"name": "shell", "arguments": "{\"command\":[\"apply_patch\",\"*** Begin Patch\\n*** Update File: core/tests/cli_stream.rs\\n@@\\n*** End Patch\"]}"}}]},
    {"role": "user", "content": "thanks"},
    {"type": "function_call", "name": "shell", "arguments": "{\"command\":[\"bash\",\"-lc\",\"cargo test\"]}", "call_id": "c3"}
  ]
}
`

func TestLegacyRolloutReadWhole(t *testing.T) {
	var r Reader
	path := "/home/u/.codex/sessions/rollout-2025-08-23-0418f71e-beb0-474c-a03d-1719a72e64cc.json"
	if err := r.Sniff(path, []byte(legacyFixture)); err != nil {
		t.Fatalf("sniff: %v", err)
	}
	if r.Sniff(path, []byte(`{"sessions": [], "items": []}`)) == nil {
		t.Error("an object that does not open with its session was taken for a rollout")
	}
	h := Parse([]byte(legacyFixture), harness.ParseOptions{Path: path})
	if len(h.Warnings) != 0 || len(h.Sessions) != 1 {
		t.Fatalf("warnings %v, %d sessions", h.Warnings, len(h.Sessions))
	}
	s := h.Sessions[0]
	if s.ID != "codex-0418f71e-beb0-474c-a03d-1719a72e64cc" || s.Started.IsZero() || s.End != int64(len(legacyFixture)) {
		t.Fatalf("session %s started %v end %d", s.ID, s.Started, s.End)
	}
	var got []string
	for _, m := range s.Messages {
		got = append(got, string(m.Role)+":"+m.Text)
	}
	want := []string{"user:why does cli_stream fail?", "assistant:The fixture server is not started before the test.", "user:thanks"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("messages %q, want %q (no injected context, no reasoning)", got, want)
	}
	var recs []string
	for _, rec := range s.Records {
		recs = append(recs, string(rec.Kind)+":"+rec.Value+":"+string(rec.Action))
	}
	if len(recs) != 3 || !strings.HasPrefix(recs[0], "command:ls -R") || !strings.HasPrefix(recs[1], "file:core/tests/cli_stream.rs:edited") || !strings.HasPrefix(recs[2], "command:cargo test") {
		t.Errorf("records %q, want the shell commands (a chat item's and a Responses item's) and the patched file relative to the cwd", recs)
	}

	// Cut short (being written): nothing yet, and no warning.
	torn := Parse([]byte(legacyFixture[:len(legacyFixture)/2]), harness.ParseOptions{Path: path})
	if len(torn.Sessions) != 0 || len(torn.Warnings) != 0 {
		t.Errorf("a torn legacy rollout: %d sessions, warnings %v", len(torn.Sessions), torn.Warnings)
	}
	// Whole but unreadable: counted.
	bad := Parse([]byte(`{"session": {"id": 7}, "items": [}`), harness.ParseOptions{Path: path})
	if len(bad.Sessions) != 0 || len(bad.Warnings) != 1 {
		t.Errorf("a broken legacy rollout: %d sessions, warnings %v", len(bad.Sessions), bad.Warnings)
	}
}

// TestCorpusLegacyRollout reads the corpus's one legacy rollout (X1).
func TestCorpusLegacyRollout(t *testing.T) {
	path := filepath.Join(corpusDir, "JaydenXsoe__ocodex__.codex_main_codex.back_sessions_rollout-2025-08-23-0418f71e-beb0-474c-a03d-1719a72e64cc.json")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Skipf("no corpus: %v", err)
	}
	var r Reader
	if err := r.Sniff("/home/u/.codex/sessions/rollout-2025-08-23-0418f71e-beb0-474c-a03d-1719a72e64cc.json", data[:min(len(data), 8192)]); err != nil {
		t.Fatalf("sniff: %v", err)
	}
	h := Parse(data, harness.ParseOptions{Path: path})
	if len(h.Sessions) != 1 || len(h.Warnings) != 0 {
		t.Fatalf("%d sessions, warnings %v", len(h.Sessions), h.Warnings)
	}
	s := h.Sessions[0]
	if s.ID != "codex-0418f71e-beb0-474c-a03d-1719a72e64cc" || len(s.Messages) != 1 || !strings.HasPrefix(s.Messages[0].Text, "test responses_api_stream_cli ... FAILED") {
		t.Fatalf("session %s, %d messages", s.ID, len(s.Messages))
	}
	if len(s.Records) != 1 || s.Records[0].Value != "ls -R" {
		t.Errorf("records %+v, want the one shell call", s.Records)
	}
}

// TestDiscoverFindsLegacyRollouts: discovery lists a legacy .json rollout,
// but not one a newer .jsonl of the same name replaced.
func TestDiscoverFindsLegacyRollouts(t *testing.T) {
	home := t.TempDir()
	dir := filepath.Join(home, ".codex", "sessions")
	for _, name := range []string{"rollout-2025-08-23-aaaa.json", "rollout-2025-08-24-bbbb.json", "rollout-2025-08-24-bbbb.jsonl", "config.json"} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	d := Reader{}.Discover(harness.DiscoverOptions{Home: home})
	var got []string
	for _, s := range d.Sources {
		got = append(got, filepath.Base(s.Path))
	}
	want := "rollout-2025-08-23-aaaa.json rollout-2025-08-24-bbbb.jsonl"
	if strings.Join(got, " ") != want {
		t.Errorf("found %q, want %q", got, want)
	}
}
