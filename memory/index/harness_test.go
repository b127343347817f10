package index

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/deja-dev/deja/aider"
	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/claude"
	"github.com/deja-dev/deja/harness/codex"
	"github.com/deja-dev/deja/memory/digest"
	"github.com/deja-dev/deja/memory/memtest"
	"github.com/deja-dev/deja/memory/recall"
	"github.com/deja-dev/deja/memory/store"
	"github.com/deja-dev/deja/userfile"
)

// transcript writes a Claude Code transcript with a sidechain and returns
// its resolved path.
func transcript(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, memtest.TranscriptID+".jsonl")
	data := memtest.ClaudeLine(1, "user", `"fix the rounding"`, "") +
		memtest.ClaudeLine(2, "assistant", `[{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"/srv/shop/a.go"}},{"type":"tool_use","id":"t2","name":"Edit","input":{"file_path":"/srv/shop/b.go"}},{"type":"tool_use","id":"t3","name":"Read","input":{"file_path":"/srv/shop/b.go"}}]`, "") +
		memtest.ClaudeLine(3, "assistant", `[{"type":"text","text":"Fixed."}]`, "") +
		memtest.ClaudeLine(4, "user", `"survey the kafka consumers"`, `,"isSidechain":true,"agentId":"abc1234"`)
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	path, err := userfile.ResolvePath(path)
	if err != nil {
		t.Fatal(err)
	}
	return path
}

func indexWith(t *testing.T, s *store.Store, paths ...string) Report {
	t.Helper()
	rep, err := Index(context.Background(), s, Options{Paths: paths, Harnesses: harness.Registry{claude.Reader{}, aider.Reader{}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Problems) > 0 {
		t.Fatalf("unexpected problems: %v", rep.Problems)
	}
	return rep
}

// TestIndexStoresWhatAHarnessSays pins that a session's harness, project,
// parent and subagent flag, each file's action and each turn's time reach
// the store, and that a subagent's session is out of default listings.
func TestIndexStoresWhatAHarnessSays(t *testing.T) {
	s, _ := memtest.Fixture(t)
	path := transcript(t, t.TempDir())
	indexWith(t, s, path)
	ctx := context.Background()

	list, err := digest.Sessions(ctx, s, recall.Scope{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].ID != "claude-"+memtest.TranscriptID || list[0].Harness != "claude" || list[0].Project != "/srv/shop" {
		t.Fatalf("default listing = %+v, want the main Claude Code session in /srv/shop alone", list)
	}
	all, err := digest.Sessions(ctx, s, recall.Scope{Subagents: true, Harness: "claude"})
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 2 || !all[0].Subagent && !all[1].Subagent {
		t.Fatalf("with subagents = %+v, want the subagent too", all)
	}
	for _, si := range all {
		if si.Subagent && si.Parent != "claude-"+memtest.TranscriptID {
			t.Errorf("subagent %s has parent %q", si.ID, si.Parent)
		}
	}
	if none, _ := digest.Sessions(ctx, s, recall.Scope{Harness: "codex"}); len(none) != 0 {
		t.Errorf("--harness codex listed %+v", none)
	}

	var files, actions string
	var timeNS int64
	err = memtest.RawDB(t, s).QueryRowContext(ctx, `SELECT files, actions, time_ns FROM turns WHERE session_id = ? AND turn = 0`, "claude-"+memtest.TranscriptID).Scan(&files, &actions, &timeNS)
	if err != nil {
		t.Fatal(err)
	}
	if files != "a.go\nb.go" || actions != "read\nedited" {
		t.Errorf("files %q with actions %q, want a.go read and b.go edited (an edit outranks a later read)", files, actions)
	}
	if got := timeNS; got != 1784541660000000000 {
		t.Errorf("turn time %d, want the first message's (2026-07-20T10:01:00Z)", got)
	}
}

// TestIndexTranscriptGrowsAndWaitsForAPartialLine pins the incremental
// read of a JSONL transcript: a half-written last line is not read, and
// is read once complete, without storing the turns before it again.
func TestIndexTranscriptGrowsAndWaitsForAPartialLine(t *testing.T) {
	s, _ := memtest.Fixture(t)
	path := transcript(t, t.TempDir())
	indexWith(t, s, path)

	line := memtest.ClaudeLine(5, "user", `"now add a test"`, "")
	memtest.AppendFile(t, path, line[:len(line)/2])
	if rep := indexWith(t, s, path); rep.NewTurns != 0 {
		t.Fatalf("a partial line gave %d new turns", rep.NewTurns)
	}
	memtest.AppendFile(t, path, line[len(line)/2:])
	rep := indexWith(t, s, path)
	if rep.NewTurns != 1 {
		t.Fatalf("the completed line gave %d new turns, want 1", rep.NewTurns)
	}
	d, err := digest.Session(context.Background(), s, "claude-"+memtest.TranscriptID)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Turns) != 2 || !strings.Contains(d.Turns[1].User, "now add a test") {
		t.Fatalf("turns %+v", d.Turns)
	}
}

// TestSchemaUpgradesFrom2 pins that a store written before harnesses is
// upgraded in place, its sessions read as aider's.
func TestSchemaUpgradesFrom2(t *testing.T) {
	s, path := memtest.Fixture(t)
	mustIndex(t, s, nil, path)
	ctx := context.Background()
	toSchema6(t, s)
	s2 := reopenAfter(t, s,
		`ALTER TABLE files DROP COLUMN harness`, `ALTER TABLE sessions DROP COLUMN harness`,
		`DROP INDEX sessions_subagents`,
		`ALTER TABLE sessions DROP COLUMN parent`, `ALTER TABLE sessions DROP COLUMN subagent`,
		`ALTER TABLE sessions DROP COLUMN marker`, `ALTER TABLE turns DROP COLUMN actions`,
		`ALTER TABLE turns DROP COLUMN time_ns`, `ALTER TABLE files DROP COLUMN full_pending`,
		`UPDATE meta SET value = '2' WHERE key = 'schema'`,
	)
	list, err := digest.Sessions(ctx, s2, recall.Scope{Harness: "aider"})
	if err != nil {
		t.Fatal(err)
	}
	if len(list) == 0 {
		t.Fatal("no aider sessions after the upgrade")
	}
	var v string
	if err := memtest.RawDB(t, s2).QueryRowContext(ctx, `SELECT value FROM meta WHERE key = 'schema'`).Scan(&v); err != nil || v != store.SchemaVersion {
		t.Fatalf("schema %q (%v), want %s", v, err, store.SchemaVersion)
	}
}

// TestIndexKeepsASessionThatLeftATranscript pins that a transcript
// rewritten without one of its sessions (a sidechain's lines gone) keeps
// that session, gone from the file, instead of deleting it.
func TestIndexKeepsASessionThatLeftATranscript(t *testing.T) {
	s, _ := memtest.Fixture(t)
	path := transcript(t, t.TempDir())
	indexWith(t, s, path)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	rewritten := strings.Join(lines[:3], "") + memtest.ClaudeLine(9, "user", `"a much longer question that replaces the sidechain line in place, so the file grows"`, "")
	if err := os.WriteFile(path, []byte(rewritten), 0o644); err != nil {
		t.Fatal(err)
	}
	indexWith(t, s, path)
	all, err := digest.Sessions(context.Background(), s, recall.Scope{Subagents: true})
	if err != nil {
		t.Fatal(err)
	}
	var sub *digest.SessionInfo
	for i := range all {
		if all[i].Subagent {
			sub = &all[i]
		}
	}
	if sub == nil || sub.Present || sub.Turns != 1 {
		t.Fatalf("sessions %+v: want the subagent kept, gone from its file, with its turn", all)
	}
}

// TestIndexCompressedRollout pins that a Codex .jsonl.zst rollout is
// decoded before it is sniffed and parsed, and read once when unchanged.
func TestIndexCompressedRollout(t *testing.T) {
	s, _ := memtest.Fixture(t)
	plain, err := os.ReadFile("../../harness/codex/testdata/double_logged_messages_read_once.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "rollout-2025-12-25T22-45-23-019b55c1-d022-7061-bbb9-b0c90708472b.jsonl.zst")
	if err := os.WriteFile(path, enc.EncodeAll(plain, nil), 0o644); err != nil {
		t.Fatal(err)
	}
	path, _ = userfile.ResolvePath(path)
	reg := harness.Registry{codex.Reader{}, claude.Reader{}, aider.Reader{}}
	rep, err := Index(context.Background(), s, Options{Paths: []string{path}, Harnesses: reg})
	if err != nil || len(rep.Problems) > 0 || rep.NewTurns != 2 {
		t.Fatalf("index: %+v, %v; want 2 new turns", rep, err)
	}
	list, err := digest.Sessions(context.Background(), s, recall.Scope{Harness: "codex"})
	if err != nil || len(list) != 1 || list[0].ID != "codex-019b55c1-d022-7061-bbb9-b0c90708472b" {
		t.Fatalf("sessions %+v, %v", list, err)
	}
	if rep, _ := Index(context.Background(), s, Options{Paths: []string{path}, Harnesses: reg}); rep.Read != 0 {
		t.Fatalf("an unchanged rollout was read again: %+v", rep)
	}
}
