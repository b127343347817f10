package index

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/claude"
	"github.com/deja-dev/deja/harness/codex"
	"github.com/deja-dev/deja/memory/digest"
	"github.com/deja-dev/deja/memory/memtest"
	"github.com/deja-dev/deja/memory/recall"
	"github.com/deja-dev/deja/memory/store"
	"github.com/deja-dev/deja/userfile"
)

// The sessions of the prompt-history tests: one on disk, one indexed and
// then deleted, one deja never saw.
const (
	liveID    = "aaaaaaaa-0000-4000-8000-000000000001"
	deletedID = "aaaaaaaa-0000-4000-8000-000000000002"
	unseenID  = "aaaaaaaa-0000-4000-8000-000000000003"
)

// claudeSession writes a Claude Code transcript of one prompt answered.
func claudeSession(t *testing.T, dir, id, prompt string) string {
	t.Helper()
	line := func(n int, typ, content string) string {
		return fmt.Sprintf(`{"type":%q,"uuid":"u%d","sessionId":%q,"cwd":"/srv/shop","timestamp":"2026-07-20T10:%02d:00.000Z","message":{"role":%q,"content":%s}}`+"\n", typ, n, id, n, typ, content)
	}
	return writeResolved(t, filepath.Join(dir, id+".jsonl"), line(1, "user", fmt.Sprintf("%q", prompt))+line(2, "assistant", `[{"type":"text","text":"Done."}]`))
}

// historyLine is a line of Claude Code's history.jsonl.
func historyLine(session, prompt string, ms int64) string {
	return fmt.Sprintf(`{"display":%q,"pastedContents":{},"timestamp":%d,"project":"/srv/shop","sessionId":%q}`+"\n", prompt, ms, session)
}

func writeResolved(t *testing.T, path, data string) string {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	resolved, err := userfile.ResolvePath(path)
	if err != nil {
		t.Fatal(err)
	}
	return resolved
}

// promptSessions lists the stored sessions made of a prompt-history entry.
func promptSessions(t *testing.T, s *store.Store) []digest.SessionInfo {
	t.Helper()
	all, err := digest.Sessions(context.Background(), s, recall.Scope{Subagents: true})
	if err != nil {
		t.Fatal(err)
	}
	var out []digest.SessionInfo
	for _, si := range all {
		if harness.IsPromptID(si.Harness, si.ID) {
			out = append(out, si)
		}
	}
	return out
}

// TestPromptHistoryStoresOnlyUnseenPrompts pins the prompt history's one
// rule: a prompt becomes a turn of its own only when no session holds it.
// The live session's prompt (its transcript on disk, listed after the
// history), the deleted session's (indexed, then its transcript removed)
// and the prompt typed again are each stored once; the unseen session's
// prompt is stored once, linked to its session, and found by recall; a
// malformed line is skipped and the lines after it kept; and neither a
// second run nor a full one stores anything again.
func TestPromptHistoryStoresOnlyUnseenPrompts(t *testing.T) {
	s, _ := memtest.Fixture(t)
	ctx := context.Background()
	dir := t.TempDir()
	projects := filepath.Join(dir, "projects", "-srv-shop")
	if err := os.MkdirAll(projects, 0o755); err != nil {
		t.Fatal(err)
	}
	deleted := claudeSession(t, projects, deletedID, "rename the invoice table")
	indexWith(t, s, deleted)
	if err := os.Remove(deleted); err != nil {
		t.Fatal(err)
	}
	live := claudeSession(t, projects, liveID, "fix the   rounding\nin totals")
	history := writeResolved(t, filepath.Join(dir, "history.jsonl"),
		historyLine(deletedID, "rename the invoice table", 1784541600000)+
			historyLine(liveID, "fix the rounding in totals", 1784541700000)+
			"{not json\n"+
			historyLine(unseenID, "migrate the ledger to postgres", 1784541800000)+
			historyLine(unseenID, "/clear", 1784541850000)+
			historyLine(unseenID, "migrate the ledger  to postgres", 1784541900000))

	rep := indexWith(t, s, history, live)
	got := promptSessions(t, s)
	if len(got) != 1 || got[0].Parent != "claude-"+unseenID || got[0].First != "migrate the ledger to postgres" || got[0].Turns != 1 || got[0].Project != "/srv/shop" {
		t.Fatalf("prompt sessions = %+v, want the unseen session's prompt alone, linked to it", got)
	}
	if rep.NewTurns != 2 {
		t.Errorf("first run stored %d turns, want 2 (the live session's and the unseen prompt)", rep.NewTurns)
	}
	if len(rep.Warnings) != 1 || !strings.Contains(rep.Warnings[0], "line 3") {
		t.Errorf("warnings = %q, want the malformed line 3", rep.Warnings)
	}
	ans, err := recall.Recall(ctx, s, recall.Options{Query: "ledger postgres", Mode: recall.Keyword})
	if err != nil {
		t.Fatal(err)
	}
	if len(ans.Results) == 0 || ans.Results[0].SessionID != got[0].ID {
		t.Fatalf("recall = %+v, want the history's prompt first", ans.Results)
	}

	for _, full := range []bool{false, true} {
		again, err := Index(ctx, s, Options{Paths: []string{history, live}, Harnesses: harness.Registry{claude.Reader{}}, Full: full})
		if err != nil {
			t.Fatal(err)
		}
		if again.NewTurns != 0 || len(again.Problems) != 0 {
			t.Errorf("run again (full %v): %d new turns, problems %q; want none", full, again.NewTurns, again.Problems)
		}
	}
	if n := len(promptSessions(t, s)); n != 1 {
		t.Errorf("%d prompt sessions after running again, want 1", n)
	}
}

// TestPromptHistoryGrows pins the incremental read of an appended
// history: a prompt added later is stored, one typed again later in the
// same session is not.
func TestPromptHistoryGrows(t *testing.T) {
	s, _ := memtest.Fixture(t)
	dir := t.TempDir()
	first := historyLine(unseenID, "continue", 1784541600000)
	path := writeResolved(t, filepath.Join(dir, "history.jsonl"), first)
	indexWith(t, s, path)
	writeResolved(t, path, first+historyLine(unseenID, "add a retry to the upload", 1784541700000)+historyLine(unseenID, "continue", 1784541800000))
	rep := indexWith(t, s, path)
	if rep.NewTurns != 1 {
		t.Errorf("the grown history stored %d turns, want 1", rep.NewTurns)
	}
	if n := len(promptSessions(t, s)); n != 2 {
		t.Errorf("%d prompt sessions, want 2", n)
	}
}

// TestCodexPromptHistory pins Codex's history.jsonl: a prompt of a
// rollout's session is not stored again, one of a pruned session is,
// linked to it (by the older conversation_id here), in no project.
func TestCodexPromptHistory(t *testing.T) {
	s, _ := memtest.Fixture(t)
	dir := t.TempDir()
	const rollout = "019d688b-3b5f-72c0-8028-4a4af562b9f5"
	history := writeResolved(t, filepath.Join(dir, "history.jsonl"),
		fmt.Sprintf(`{"session_id":%q,"ts":1775575481,"text":"switch the frontend to bun"}`+"\n", rollout)+
			`{"conversation_id":"019d6d67-1952-7e83-93ef-94497e3c15b6","ts":1775656982,"text":"pick a terminal font"}`+"\n")
	path := writeResolved(t, filepath.Join(dir, "rollout-2026-04-07T10-00-00-"+rollout+".jsonl"),
		fmt.Sprintf(`{"timestamp":"2026-04-07T10:00:00.000Z","type":"session_meta","payload":{"id":%q,"timestamp":"2026-04-07T10:00:00.000Z","cwd":"/srv/web"}}`+"\n", rollout)+
			`{"timestamp":"2026-04-07T10:00:01.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"switch the frontend to bun"}]}}`+"\n"+
			`{"timestamp":"2026-04-07T10:00:02.000Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Switched."}]}}`+"\n")
	rep, err := Index(context.Background(), s, Options{Paths: []string{history, path}, Harnesses: harness.Registry{codex.Reader{}, claude.Reader{}}})
	if err != nil || len(rep.Problems) > 0 {
		t.Fatalf("index: %v %q", err, rep.Problems)
	}
	got := promptSessions(t, s)
	if len(got) != 1 || got[0].Harness != "codex" || got[0].Parent != "codex-019d6d67-1952-7e83-93ef-94497e3c15b6" || got[0].First != "pick a terminal font" || got[0].Project != "" {
		t.Fatalf("prompt sessions = %+v, want the pruned session's prompt alone, in no project", got)
	}
}

// TestPromptHistoryKeepsForgottenForgotten pins that a prompt whose
// session was forgotten does not come back from the prompt history.
func TestPromptHistoryKeepsForgottenForgotten(t *testing.T) {
	s, _ := memtest.Fixture(t)
	dir := t.TempDir()
	live := claudeSession(t, dir, liveID, "rotate the signing key")
	indexWith(t, s, live)
	if err := s.Forget(context.Background(), []string{"claude-" + liveID}, store.LockOptions{}); err != nil {
		t.Fatal(err)
	}
	history := writeResolved(t, filepath.Join(dir, "history.jsonl"), historyLine(liveID, "rotate the signing key", 1784541600000))
	if rep := indexWith(t, s, history); rep.NewTurns != 0 {
		t.Errorf("the forgotten session's prompt was stored: %d new turns", rep.NewTurns)
	}
}

// TestPromptHistoryBeforeItsTranscript pins "never stored twice" when a
// transcript comes after its prompt history was read: the prompt stored
// alone in the first run, linked to its session, goes in the second run,
// which stores the transcript, so the store holds it once, in the
// transcript; a third run, plain or full, reads the history again without
// bringing it back.
func TestPromptHistoryBeforeItsTranscript(t *testing.T) {
	s, _ := memtest.Fixture(t)
	ctx := context.Background()
	dir := t.TempDir()
	projects := filepath.Join(dir, "projects", "-srv-shop")
	if err := os.MkdirAll(projects, 0o755); err != nil {
		t.Fatal(err)
	}
	history := writeResolved(t, filepath.Join(dir, "history.jsonl"),
		historyLine(unseenID, "migrate the ledger to postgres", 1784541600000)+
			historyLine(deletedID, "tidy the changelog", 1784541700000))
	indexWith(t, s, history)
	if n := len(promptSessions(t, s)); n != 2 {
		t.Fatalf("%d prompt sessions after the history alone, want 2", n)
	}

	transcript := claudeSession(t, projects, unseenID, "migrate the ledger\nto postgres")
	if rep := indexWith(t, s, history, transcript); rep.NewTurns != 1 {
		t.Errorf("the transcript stored %d turns, want 1", rep.NewTurns)
	}
	got := promptSessions(t, s)
	if len(got) != 1 || got[0].First != "tidy the changelog" {
		t.Fatalf("prompt sessions = %+v after the transcript, want the other session's prompt alone", got)
	}
	ans, err := recall.Recall(ctx, s, recall.Options{Query: "ledger postgres", Mode: recall.Keyword})
	if err != nil {
		t.Fatal(err)
	}
	if len(ans.Results) != 1 || ans.Results[0].SessionID != "claude-"+unseenID {
		t.Errorf("recall = %+v, want the transcript's turn alone", ans.Results)
	}

	for _, full := range []bool{false, true} {
		again, err := Index(ctx, s, Options{Paths: []string{history, transcript}, Harnesses: harness.Registry{claude.Reader{}}, Full: full})
		if err != nil {
			t.Fatal(err)
		}
		if again.NewTurns != 0 && !full || len(again.Problems) != 0 {
			t.Errorf("run again (full %v): %d new turns, problems %q; want none", full, again.NewTurns, again.Problems)
		}
		if n := promptSessions(t, s); len(n) != 1 || n[0].ID != got[0].ID {
			t.Errorf("prompt sessions = %+v after running again (full %v), want %s alone", n, full, got[0].ID)
		}
	}
}

// wholeFake is a WholeReader of a made-up store, a text file opening with
// "WHOLE": a line "S <id> <prompt>" is a session of /srv/shop asking
// prompt, answered; "N <id> <prompt>" the same in no project; "P <id>
// <prompt>" a prompt of its prompt history, linked to session <id>, in
// /srv/shop.
type wholeFake struct{}

func (wholeFake) Name() string                                       { return "whole" }
func (wholeFake) Discover(harness.DiscoverOptions) harness.Discovery { return harness.Discovery{} }
func (wholeFake) ValidID(id string) bool                             { return strings.HasPrefix(id, "whole-") }

func (wholeFake) Sniff(path string, head []byte) error {
	if !strings.HasPrefix(string(head), "WHOLE\n") {
		return fmt.Errorf("not a made-up store")
	}
	return nil
}

func (wholeFake) Read(ctx context.Context, path string, opts harness.ParseOptions) (*harness.History, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	h := &harness.History{Path: path}
	var prompts []harness.Prompt
	for i, line := range strings.Split(string(data), "\n") {
		kind, rest, _ := strings.Cut(line, " ")
		switch kind {
		case "S", "N":
			id, prompt, _ := strings.Cut(rest, " ")
			project := "/srv/shop"
			if kind == "N" {
				project = ""
			}
			h.Sessions = append(h.Sessions, harness.Session{ID: "whole-" + id, Ordinal: len(h.Sessions) + 1, Project: project, Marker: prompt,
				Messages: []harness.Message{{Role: harness.User, Text: prompt, Line: i + 1}, {Role: harness.Assistant, Text: "Done.", Line: i + 1}}})
		case "P":
			id, prompt, _ := strings.Cut(rest, " ")
			prompts = append(prompts, harness.Prompt{Text: prompt, Session: "whole-" + id, Project: "/srv/shop", Line: i + 1})
		}
	}
	h.Sessions = append(h.Sessions, harness.PromptSessions("whole", prompts, opts)...)
	return h, nil
}

// TestPromptHistoryBeforeItsStoredSession is
// TestPromptHistoryBeforeItsTranscript for a WholeReader's store: a prompt
// stored alone goes once the session it is linked to is stored holding
// it, and the prompt history, read on every run, does not bring it back.
func TestPromptHistoryBeforeItsStoredSession(t *testing.T) {
	s, _ := memtest.Fixture(t)
	ctx := context.Background()
	dir := t.TempDir()
	prompts := writeResolved(t, filepath.Join(dir, "prompts"), "WHOLE\nP 1 tidy the  changelog\nP 2 bump the version\n")
	sessions := writeResolved(t, filepath.Join(dir, "store"), "WHOLE\n")
	index := func(full bool) Report {
		t.Helper()
		rep, err := Index(ctx, s, Options{Paths: []string{sessions, prompts}, Harnesses: harness.Registry{wholeFake{}}, Full: full})
		if err != nil || len(rep.Problems) > 0 {
			t.Fatalf("index: %v %q", err, rep.Problems)
		}
		return rep
	}
	index(false)
	if n := len(promptSessions(t, s)); n != 2 {
		t.Fatalf("%d prompt sessions after the prompts alone, want 2", n)
	}
	writeResolved(t, sessions, "WHOLE\nS 1 tidy the changelog\n")
	index(false)
	got := promptSessions(t, s)
	if len(got) != 1 || got[0].First != "bump the version" {
		t.Fatalf("prompt sessions = %+v, want the prompt of the session not stored alone", got)
	}
	for _, full := range []bool{false, true} {
		index(full)
		if again := promptSessions(t, s); len(again) != 1 || again[0].ID != got[0].ID {
			t.Errorf("prompt sessions = %+v after running again (full %v), want %s alone", again, full, got[0].ID)
		}
	}
}

// TestPromptHistoryLostPaste pins a prompt whose paste Claude Code's
// history no longer has (its paste-cache/ file pruned): the placeholder
// stands for the paste the transcript holds, so the prompt is not stored
// again, linked to a session indexed and since deleted, or linked to none
// and asked by another session of the project.
func TestPromptHistoryLostPaste(t *testing.T) {
	s, _ := memtest.Fixture(t)
	dir := t.TempDir()
	deleted := claudeSession(t, dir, deletedID, "why does checkout fail with\nTraceback: KeyError 'cart'\nplease")
	live := claudeSession(t, dir, liveID, "explain Traceback: KeyError 'cart' again")
	indexWith(t, s, deleted, live)
	if err := os.Remove(deleted); err != nil {
		t.Fatal(err)
	}
	history := writeResolved(t, filepath.Join(dir, "history.jsonl"),
		`{"display":"why does checkout fail with [Pasted text #1 +2 lines] please","pastedContents":{"1":{"id":1,"type":"text","contentHash":"aaaaaaaaaaaaaaaa"}},"timestamp":1784541600000,"project":"/srv/shop","sessionId":"`+deletedID+`"}`+"\n"+
			`{"display":"explain [Pasted text #1 +1 lines] again","pastedContents":{"1":{"id":1,"type":"text","contentHash":"bbbbbbbbbbbbbbbb"}},"timestamp":1784541700000,"project":"/srv/shop"}`+"\n")
	if rep := indexWith(t, s, history); rep.NewTurns != 0 {
		t.Errorf("prompts whose pastes are lost were stored: %d new turns, %+v", rep.NewTurns, promptSessions(t, s))
	}
}

// TestUnlinkedPromptBeforeItsTranscript pins the prompts of a history
// that names no session (Claude Code's older lines): stored alone in the
// first run, each goes once a later run stores a session of its project
// asking exactly it, one whose paste is lost included; the prompt of
// another project, and one a turn only mentions, stay; running again,
// plain or full, brings none back.
func TestUnlinkedPromptBeforeItsTranscript(t *testing.T) {
	s, _ := memtest.Fixture(t)
	ctx := context.Background()
	dir := t.TempDir()
	line := func(prompt, project string, ms int64) string {
		return fmt.Sprintf(`{"display":%q,"pastedContents":{},"timestamp":%d,"project":%q}`+"\n", prompt, ms, project)
	}
	history := writeResolved(t, filepath.Join(dir, "history.jsonl"),
		line("deploy the billing worker", "/srv/shop", 1784541600000)+
			line("rotate the [Pasted text #1 +1 lines] keys", "/srv/shop", 1784541700000)+
			line("compact the logs", "/srv/other", 1784541800000)+
			line("vacuum the cache", "/srv/shop", 1784541900000))
	indexWith(t, s, history)
	if n := len(promptSessions(t, s)); n != 4 {
		t.Fatalf("%d prompt sessions after the history alone, want 4", n)
	}

	var b strings.Builder
	for i, prompt := range []string{"deploy the billing\n  worker", "rotate the\nstaging and prod keys", "compact the logs", "why vacuum the cache twice?"} {
		fmt.Fprintf(&b, `{"type":"user","uuid":"u%d","sessionId":%q,"cwd":"/srv/shop","timestamp":"2026-07-21T10:%02d:00.000Z","message":{"role":"user","content":%q}}`+"\n", 2*i, liveID, 2*i, prompt)
		fmt.Fprintf(&b, `{"type":"assistant","uuid":"u%d","sessionId":%q,"cwd":"/srv/shop","timestamp":"2026-07-21T10:%02d:00.000Z","message":{"role":"assistant","content":[{"type":"text","text":"Done."}]}}`+"\n", 2*i+1, liveID, 2*i+1)
	}
	transcript := writeResolved(t, filepath.Join(dir, liveID+".jsonl"), b.String())
	indexWith(t, s, transcript)
	want := func(when string) {
		t.Helper()
		var firsts []string
		for _, si := range promptSessions(t, s) {
			firsts = append(firsts, si.First)
		}
		slices.Sort(firsts)
		if !slices.Equal(firsts, []string{"compact the logs", "vacuum the cache"}) {
			t.Errorf("prompt sessions %s: %q, want the other project's and the one only mentioned", when, firsts)
		}
	}
	want("after the transcript")
	for _, full := range []bool{false, true} {
		again, err := Index(ctx, s, Options{Paths: []string{history, transcript}, Harnesses: harness.Registry{claude.Reader{}}, Full: full})
		if err != nil || len(again.Problems) != 0 {
			t.Fatalf("run again (full %v): %v %q", full, err, again.Problems)
		}
		if again.NewTurns != 0 && !full {
			t.Errorf("run again: %d new turns, want none", again.NewTurns)
		}
		want(fmt.Sprintf("after running again (full %v)", full))
	}
}
