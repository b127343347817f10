package work

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/memory/memtest"
	"github.com/deja-dev/deja/memory/recall"
	"github.com/deja-dev/deja/memory/store/check"
)

const project = "/home/u/src/shop"

func TestBlameEditsFirstThenReadsThenWords(t *testing.T) {
	s := indexed(t,
		session("a", project, day(1), []string{"add the tenant filter"},
			edited(0, "store/query.go", "WHERE id = ?", "WHERE id = ? AND tenant = ?", harness.Succeeded)),
		session("b", project, day(2), []string{"why is the query slow"}, read(0, "store/query.go")),
		session("c", project, day(3), []string{"explain what store/query.go does"}),
		session("d", project, day(4), []string{"fix the tenant filter"},
			edited(0, "store/query.go", "tenant = ?", "tenant_id = ?", harness.Failed),
			edited(0, "store/query_test.go", "", "package store", ""), ran(0, "go test ./store/", 0, "ok")),
		session("e", project, day(5), []string{"touch another query file"},
			edited(0, "api/query.go", "x", "y", harness.Succeeded)),
	)
	got, err := Blame(context.Background(), s, all, "store/query.go", 10)
	if err != nil {
		t.Fatal(err)
	}
	var refs []string
	for _, it := range got {
		refs = append(refs, it.Ref+" "+it.How+" "+string(it.Outcome))
	}
	want := []string{"worktest-a/0 edited ok", "worktest-d/0 edit failed failed", "worktest-b/0 read ", "worktest-c/0 discussed "}
	if strings.Join(refs, "\n") != strings.Join(want, "\n") {
		t.Fatalf("blame store/query.go:\n%s\nwant\n%s", strings.Join(refs, "\n"), strings.Join(want, "\n"))
	}
	if got[1].Question != "fix the tenant filter" || !got[0].Restorable || got[0].Added != 1 || got[0].Removed != 1 {
		t.Errorf("first items: %+v", got[:2])
	}
	// The absolute path inside the project is the same file.
	abs, err := Blame(context.Background(), s, recall.Scope{Project: project}, project+"/store/query.go", 10)
	if err != nil || len(abs) != 4 {
		t.Errorf("blame by absolute path: %d items, %v", len(abs), err)
	}
}

func TestHowGroupsRunsAndPutsTheNewestWorkingFirst(t *testing.T) {
	s := indexed(t,
		session("a", project, day(1), []string{"run the tests"},
			ran(0, "go test ./...", 1, "--- FAIL: TestQuery"), ran(0, "go test ./...", 0, "ok")),
		session("b", project, day(2), []string{"run them verbose"},
			ran(0, "go test -v ./store/", 0, "ok"), ran(0, "docker build .", 0, "done")),
		session("c", project, day(3), []string{"race"}, ran(0, "go test -race ./...", 2, "build failed")),
	)
	got, err := How(context.Background(), s, all, "go test", 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Invocation != "go test" {
		t.Fatalf("how go test: %+v", got)
	}
	g := got[0]
	if g.Runs != 4 || g.Worked != 2 || g.Failed != 2 || g.Unknown != 0 {
		t.Errorf("tally %+v", g.Tally)
	}
	var lines []string
	for _, c := range g.Commands {
		lines = append(lines, c.Command)
	}
	want := "go test -v ./store/|go test ./...|go test -race ./..."
	if strings.Join(lines, "|") != want {
		t.Errorf("commands %q, want %q", strings.Join(lines, "|"), want)
	}
	if c := g.Commands[2]; c.LastWorked != nil || c.LastExit == nil || *c.LastExit != 2 {
		t.Errorf("the race run: %+v", c)
	}
	if none, _ := How(context.Background(), s, all, "cargo build", 5); len(none) != 0 {
		t.Errorf("how cargo build: %+v", none)
	}
}

func TestFixFollowsTheSessionUntilTheErrorStops(t *testing.T) {
	const errText = `undefined: tenantID`
	s := indexed(t,
		session("a", project, day(1), []string{"build it", "try again", "and now"},
			ran(0, "go build ./...", 1, "store/query.go:12:5: undefined: tenantID\n"),
			ran(1, "go vet ./store/", 1, "vet: store/query.go:12:5: undefined: tenantID"),
			edited(1, "store/query.go", "tenantID", "tenant.ID", harness.Succeeded),
			ran(2, "gofmt -l .", 0, ""),
			ran(2, "go build ./...", 0, "")),
		session("b", project, day(2), []string{"build"},
			ran(0, "go build ./...", 1, "x.go:1: UNDEFINED:   tenantID")),
		session("c", project, day(3), []string{"other"}, ran(0, "go build ./...", 1, "undefined: orderID")),
	)
	got, err := Fix(context.Background(), s, all, "undefined:  tenantID", 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("fix: %+v", got)
	}
	fixed := got[0]
	if !fixed.Fixed || fixed.Ref != "worktest-a/1" || fixed.Command != "go vet ./store/" || fixed.Confirmed == nil ||
		fixed.Confirmed.Ref != "worktest-a/2" || fixed.Confirmed.Command != "go build ./..." {
		t.Fatalf("fixed: %+v", fixed)
	}
	if len(fixed.Next) != 1 || fixed.Next[0].Command != "gofmt -l ." || strings.Join(fixed.Edited, ",") != "store/query.go" {
		t.Errorf("what came next: %+v, edited %v", fixed.Next, fixed.Edited)
	}
	if !strings.Contains(fixed.Line, errText) {
		t.Errorf("line %q", fixed.Line)
	}
	if open := got[1]; open.Fixed || open.Session != "worktest-b" || open.Exit == nil || *open.Exit != 1 {
		t.Errorf("unfixed: %+v", open)
	}
}

func TestFrictionIsAnErrorOfThreeSessions(t *testing.T) {
	out := func(line string) string { return "compiling...\n" + line + "\n" }
	s := indexed(t,
		session("a", project, day(1), []string{"q"}, ran(0, "npm test", 1, out("Error: connect ECONNREFUSED 127.0.0.1:5432"))),
		session("b", "/home/u/src/api", day(2), []string{"q"}, ran(0, "npm run e2e", 1, out("Error: connect ECONNREFUSED 127.0.0.1:5433"))),
		session("c", project, day(3), []string{"q"}, ran(0, "npm test", 1, out("Error: connect ECONNREFUSED 10.0.0.7:5432"))),
		session("d", project, day(4), []string{"q"}, ran(0, "make", 2, out("make: *** No rule to make target 'x'. Stop."))),
		session("e", project, day(5), []string{"q"}, ran(0, "npm test", 0, out("Error: connect ECONNREFUSED 127.0.0.1:5432"))),
	)
	got, err := Friction(context.Background(), s, all, MinSessions, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 {
		t.Fatalf("friction: %+v", got)
	}
	f := got[0]
	if f.Error != "Error: connect ECONNREFUSED N.N.N.N:N" || f.Sessions != 3 || f.Runs != 3 ||
		strings.Join(f.Projects, ",") != "/home/u/src/api,"+project || f.Last.Session != "worktest-c" {
		t.Errorf("friction item %+v", f)
	}
}

func TestRestoreGivesTheOldTextOfTheNewestEdit(t *testing.T) {
	s := indexed(t,
		session("a", project, day(1), []string{"first"}, edited(0, "app.py", "def old():\n    return 1\n", "def new():\n    return 2\n", harness.Succeeded)),
		session("b", project, day(2), []string{"second"}, edited(0, "app.py", "return 2", "return 3", harness.Succeeded)),
	)
	r, err := Restore(context.Background(), s, all, "app.py", "", nil)
	if err != nil || r.Ref != "worktest-b/0" || r.Edits[0].Old != "return 2" {
		t.Fatalf("restore newest: %+v, %v", r, err)
	}
	zero := 0
	r, err = Restore(context.Background(), s, all, "./app.py", "worktest-a", &zero)
	if err != nil || r.Edits[0].Old != "def old():\n    return 1\n" {
		t.Fatalf("restore --turn worktest-a/0: %+v, %v", r, err)
	}
	if _, err := Restore(context.Background(), s, all, "other.py", "", nil); err != ErrNoEdit {
		t.Errorf("restore of a file never edited: %v", err)
	}
}

// TestWorkIsRedactedAndChecked: a command's output and an edit's texts
// are history like the turn's words: a token in them is not stored, and
// the stored work is covered by Check (the ledger's checksum and the turn's
// hash).
func TestWorkIsRedactedAndChecked(t *testing.T) {
	const token = "ghp_" + "R7mK2pQ9xL4vT8nW3sY6bJ1cF5hD0gA2eZ7u"
	const aws = "AKIA" + "QX7B2M9KD4LT8WZP"
	s := indexed(t,
		session("a", project, day(1), []string{"deploy"},
			ran(0, "./deploy.sh", 1, "auth failed for token "+token+"\nerror: 401"),
			edited(0, ".env", "AWS_ACCESS_KEY_ID="+aws, "AWS_ACCESS_KEY_ID=", harness.Succeeded)),
	)
	var stored string
	if err := memtest.RawDB(t, s).QueryRow(`SELECT group_concat(unpack(work), '') FROM turn_work`).Scan(&stored); err != nil {
		t.Fatal(err)
	}
	if stored == "" || strings.Contains(stored, token) || strings.Contains(stored, aws) {
		t.Fatalf("stored work %q", stored)
	}
	if problems, err := check.Check(context.Background(), s); err != nil || len(problems) > 0 {
		t.Fatalf("Check: %v, %v", problems, err)
	}
	// A changed byte of the work is found.
	if _, err := memtest.RawDB(t, s).Exec(`UPDATE turn_work SET work = replace(unpack(work), 'error: 401', 'error: 402')`); err != nil {
		t.Fatal(err)
	}
	if problems, _ := check.Check(context.Background(), s); len(problems) == 0 {
		t.Fatal("Check found nothing after the work was changed outside deja")
	}
}

func TestSignatureGroupsTheSameErrorFromOtherPlaces(t *testing.T) {
	for _, c := range []struct{ a, b string }{
		{"store/query.go:12:5: undefined: tenantID", "api/handler.go:40: undefined: tenantID"},
		{"Traceback (most recent call last):\n  File \"/srv/app/main.py\", line 3\nModuleNotFoundError: No module named 'yaml'",
			"Traceback (most recent call last):\n  File \"/home/u/x.py\", line 90\nModuleNotFoundError: No module named 'yaml'"},
		{"npm ERR! code ENOENT\nnpm ERR! path /home/a/package.json", "npm ERR! code ENOENT\nnpm ERR! path /srv/b/package.json"},
		{"panic: runtime error: index out of range [5] with length 3", "panic: runtime error: index out of range [7] with length 2"},
		{"dial tcp 10.0.0.7:5432: connect: connection refused", "dial tcp 127.0.0.1:5433: connect: connection refused"},
	} {
		sa, sb := Signature(c.a), Signature(c.b)
		if sa == "" || sa != sb {
			t.Errorf("%q and %q: %q, %q", c.a, c.b, sa, sb)
		}
	}
	if a, b := Signature("error: undefined: tenantID"), Signature("error: undefined: orderID"); a == b {
		t.Errorf("two errors read the same: %q", a)
	}
}

// TestBlameAndRecallSayAFileChangedSince: an edit older than the file's
// modification time, or than a commit of it, is said to be older; one
// newer than both says nothing, as does a project not on this machine.
func TestBlameAndRecallSayAFileChangedSince(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "app.go")
	if err := os.WriteFile(file, []byte("package app\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	edit := edited(0, "app.go", "a", "b", harness.Succeeded)
	s := indexed(t,
		session("old", dir, day(1), []string{"first change to app"}, edit),
		session("gone", "/nowhere/here", day(1), []string{"change app elsewhere"}, edit),
	)
	check := func(want bool) {
		t.Helper()
		items, err := Blame(context.Background(), s, recall.Scope{Project: dir}, "app.go", 5)
		if err != nil || len(items) != 1 || items[0].ChangedSince != want {
			t.Fatalf("blame: %+v, %v; want changed since %v", items, err, want)
		}
		items, err = Blame(context.Background(), s, recall.Scope{Project: "/nowhere/here"}, "app.go", 5)
		if err != nil || len(items) != 1 || items[0].ChangedSince {
			t.Fatalf("blame of another machine's project: %+v, %v", items, err)
		}
		ans, err := recall.Recall(context.Background(), s, recall.Options{Query: "app.go", Mode: recall.Keyword, Scope: recall.Scope{Project: dir}})
		if err != nil || len(ans.Results) != 1 || (ans.Results[0].Changed == 1) != want || ans.Results[0].ChangedOf != 1 {
			t.Fatalf("recall: %+v, %v; want changed %v", ans.Results, err, want)
		}
	}
	// Written now, after the turn of March 1.
	check(true)
	// Modified before the turn ended, and no repository.
	if err := os.Chtimes(file, day(1), day(1)); err != nil {
		t.Fatal(err)
	}
	check(false)
	// A commit after the turn (mtime untouched) shows the change.
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "app.go"},
		{"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "x", "--date", day(20).Format(time.RFC3339)}} {
		cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_COMMITTER_DATE="+day(20).Format(time.RFC3339))
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	if err := os.Chtimes(file, day(1), day(1)); err != nil {
		t.Fatal(err)
	}
	items, err := Blame(context.Background(), s, recall.Scope{Project: dir}, "app.go", 5)
	if err != nil || len(items) != 1 || !items[0].ChangedSince {
		t.Fatalf("blame after a later commit: %+v, %v", items, err)
	}
	for _, commits := range []bool{false, true} {
		ans, err := recall.Recall(context.Background(), s, recall.Options{Query: "app.go", Mode: recall.Keyword, Scope: recall.Scope{Project: dir}, Commits: commits})
		if err != nil || len(ans.Results) != 1 || (ans.Results[0].Changed == 1) != commits {
			t.Fatalf("recall after a later commit, asking git %v: %+v, %v", commits, ans.Results, err)
		}
	}
}

// TestALongOutputIsRedactedWholeBeforeItIsCut: a private key printed by a
// command, longer than the store keeps of an output, is redacted whole:
// cut first, its tail (the key's last lines and END line) would no longer
// read as a key and would be stored.
func TestALongOutputIsRedactedWholeBeforeItIsCut(t *testing.T) {
	var pem strings.Builder
	pem.WriteString("-----BEGIN RSA PRIVATE KEY-----\n")
	line := "MIIJKAIBAAKCAgEAu8Ql2x" // varied below so no line repeats
	for i := range 50 {
		fmt.Fprintf(&pem, "%s%02dQm9vbGVhbkxvbmdLZXlNYXRlcmlhbEZvclRoZVRlc3RT%02dZWNyZXQ%s\n", line, i, 99-i, strings.Repeat(string(rune('A'+i%26)), 4))
	}
	pem.WriteString("-----END RSA PRIVATE KEY-----")
	s := indexed(t, session("k", project, day(1), []string{"show the deploy key"},
		ran(0, "cat deploy/id_rsa", 0, pem.String())))
	var stored string
	if err := memtest.RawDB(t, s).QueryRow(`SELECT unpack(work) FROM turn_work`).Scan(&stored); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(stored, "Qm9vbGVhbkxvbmdLZXlNYXRlcmlhbEZvclRoZVRlc3RT") || strings.Contains(stored, "END RSA PRIVATE KEY") && !strings.Contains(stored, "redacted") {
		t.Fatalf("key material stored:\n%s", stored)
	}
	if len(stored) > harness.OutputHead+harness.OutputTail+500 {
		t.Errorf("the output was not cut to what the store keeps: %d bytes", len(stored))
	}
}

// TestAFailedEditIsNotRestored: the old text of an edit that failed never
// left the file; restore gives the newest edit that was applied.
func TestAFailedEditIsNotRestored(t *testing.T) {
	s := indexed(t,
		session("a", project, day(1), []string{"first"}, edited(0, "app.py", "x = 1", "x = 2", harness.Succeeded)),
		session("b", project, day(2), []string{"second"}, edited(0, "app.py", "x = 2 # not there", "x = 3", harness.Failed)),
	)
	r, err := Restore(context.Background(), s, all, "app.py", "", nil)
	if err != nil || r.Ref != "worktest-a/0" || r.Edits[0].Old != "x = 1" {
		t.Fatalf("restore: %+v, %v", r, err)
	}
	items, _ := Blame(context.Background(), s, all, "app.py", 5)
	for _, it := range items {
		if it.Ref == "worktest-b/0" && (it.Restorable || it.How != EditFailed) {
			t.Errorf("the failed edit: %+v", it)
		}
	}
}

func TestFixFindsAnErrorInAnyScript(t *testing.T) {
	s := indexed(t, session("u", project, day(1), []string{"run it"},
		ran(0, "python3 app.py", 1, "Traceback:\nОшибка: ФАЙЛ не найден")))
	for _, q := range []string{"ошибка: файл НЕ найден", "Ошибка: ФАЙЛ"} {
		got, err := Fix(context.Background(), s, all, q, 5)
		if err != nil || len(got) != 1 {
			t.Errorf("fix %q: %+v, %v", q, got, err)
		}
	}
}
