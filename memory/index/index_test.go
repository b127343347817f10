package index

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/deja-dev/deja/aider"
	"github.com/deja-dev/deja/internal/racebuild"
	"github.com/deja-dev/deja/memory/digest"
	"github.com/deja-dev/deja/memory/memtest"
	"github.com/deja-dev/deja/memory/recall"
	"github.com/deja-dev/deja/memory/store"
)

func sessionIDs(t *testing.T, s *store.Store) []string {
	t.Helper()
	list, err := digest.Sessions(context.Background(), s, recall.Scope{})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, si := range list {
		ids = append(ids, si.ID)
	}
	return ids
}

func TestIndexNothingNewReadsNothing(t *testing.T) {
	s, path := memtest.Fixture(t)
	emb := memtest.NewWordsEmbedder()
	mustIndex(t, s, emb, path)
	calls := emb.Calls
	rep := mustIndex(t, s, emb, path)
	if rep.Read != 0 || rep.NewTurns != 0 || rep.Embedded != 0 || emb.Calls != calls {
		t.Errorf("second run %+v, embed calls %d→%d; want nothing read or embedded", rep, calls, emb.Calls)
	}
}

func TestIndexAppendedSessionOnly(t *testing.T) {
	s, path := memtest.Fixture(t)
	emb := memtest.NewWordsEmbedder()
	mustIndex(t, s, emb, path)
	before := sessionIDs(t, s)
	memtest.AppendFile(t, path, memtest.ThirdSession)
	emb.Texts = 0
	rep := mustIndex(t, s, emb, path)
	if rep.Read != 1 || rep.NewTurns != 1 || rep.Sessions != 1 || emb.Texts != 1 {
		t.Errorf("report %+v, %d texts embedded; want the one new turn only", rep, emb.Texts)
	}
	after := sessionIDs(t, s)
	if len(after) != len(before)+1 {
		t.Fatalf("sessions %v → %v", before, after)
	}
	r := mustRecall(t, s, emb, "middleware/ratelimit.go", recall.Keyword)
	if len(r.Results) != 1 || !strings.HasPrefix(r.Results[0].User, "Add rate limiting") {
		t.Errorf("new turn not found: %+v", r.Results)
	}
}

func TestIndexGrowingLastSession(t *testing.T) {
	s, path := memtest.Fixture(t)
	emb := memtest.NewWordsEmbedder()
	mustIndex(t, s, emb, path)
	memtest.AppendFile(t, path, "\n#### Now shrink it further with distroless  \n\nSwitched the runtime stage to distroless.\n")
	rep := mustIndex(t, s, emb, path)
	if rep.NewTurns != 1 {
		t.Errorf("report %+v, want the last session's new turn only", rep)
	}
	d, err := digest.Session(context.Background(), s, sessionIDs(t, s)[0])
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Turns) != 2 {
		t.Errorf("last session has %d turns, want 2", len(d.Turns))
	}
}

func TestIndexKeepsSessionsOfADeletedOrCutFile(t *testing.T) {
	s, path := memtest.Fixture(t)
	emb := memtest.NewWordsEmbedder()
	mustIndex(t, s, emb, path)
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	rep := mustIndex(t, s, emb, path)
	if rep.Missing != 1 || len(sessionIDs(t, s)) != 2 {
		t.Errorf("after delete: %+v, %d sessions; want both kept", rep, len(sessionIDs(t, s)))
	}
	// A new history at the same path: the old sessions stay, marked gone.
	if err := os.WriteFile(path, []byte(memtest.ThirdSession), 0o644); err != nil {
		t.Fatal(err)
	}
	mustIndex(t, s, emb, path)
	list, _ := digest.Sessions(context.Background(), s, recall.Scope{})
	if len(list) != 3 {
		t.Fatalf("got %d sessions, want the 2 old and the new one", len(list))
	}
	gone := 0
	for _, si := range list {
		if !si.Present {
			gone++
		}
	}
	if gone != 2 {
		t.Errorf("%d sessions marked gone, want 2", gone)
	}
	if r := mustRecall(t, s, emb, "Dockerfile", recall.Keyword); len(r.Results) != 1 {
		t.Errorf("a session that left its file is no longer recalled")
	}
}

func TestForgetStaysGoneAndUndo(t *testing.T) {
	s, path := memtest.Fixture(t)
	emb := memtest.NewWordsEmbedder()
	mustIndex(t, s, emb, path)
	ids := sessionIDs(t, s)
	docker := ids[0] // newest first
	if err := s.Forget(context.Background(), []string{docker}, store.LockOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []recall.Mode{recall.Keyword, recall.Semantic} {
		for i, res := range mustRecall(t, s, emb, "Docker image multi-stage build Dockerfile", mode).Results {
			if res.SessionID == docker {
				t.Errorf("%s recall still finds the forgotten session, at rank %d", mode, i+1)
			}
		}
	}
	memtest.AppendFile(t, path, memtest.ThirdSession)
	mustIndex(t, s, emb, path)
	if _, err := os.Stat(path); err != nil {
		t.Fatal(err)
	}
	// Re-read whole, too.
	if _, err := Index(context.Background(), s, Options{Paths: []string{path}, Embedder: emb, Full: true}); err != nil {
		t.Fatal(err)
	}
	for _, id := range sessionIDs(t, s) {
		if id == docker {
			t.Fatal("re-index brought back a forgotten session")
		}
	}
	if err := s.Forget(context.Background(), []string{"aider-nope"}, store.LockOptions{}); !errors.Is(err, store.ErrNoSession) {
		t.Errorf("forgetting an unknown ID: %v", err)
	}
	if _, err := s.Unforget(context.Background(), []string{docker}, store.LockOptions{}); err != nil {
		t.Fatal(err)
	}
	mustIndex(t, s, emb, path)
	found := false
	for _, id := range sessionIDs(t, s) {
		found = found || id == docker
	}
	if !found {
		t.Error("undo did not bring the session back on the next index")
	}
}

func TestIndexFillsVectorsAfterEmbedderFailure(t *testing.T) {
	s, path := memtest.Fixture(t)
	emb := memtest.NewWordsEmbedder()
	emb.Fail = errors.New("connection refused")
	rep, err := Index(context.Background(), s, Options{Paths: []string{path}, Embedder: emb})
	if err != nil {
		t.Fatal(err)
	}
	if rep.NewTurns != 3 || rep.Lacking != 3 || len(rep.Problems) == 0 {
		t.Fatalf("report %+v, want 3 turns stored without vectors and a problem", rep)
	}
	st, err := digest.Status(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if st.Embedders[0].Lacking != 3 {
		t.Errorf("status %+v", st.Embedders)
	}
	emb.Fail = nil
	rep = mustIndex(t, s, emb, path)
	if rep.Embedded != 3 || rep.Lacking != 0 || rep.Read != 0 {
		t.Errorf("report %+v, want the 3 turns embedded without reading the file", rep)
	}
	// A second embedder embeds the whole store on its first run.
	other := memtest.NewWordsEmbedder()
	other.Name = "test:other"
	rep = mustIndex(t, s, other, path)
	if rep.Embedded != 3 {
		t.Errorf("new embedder: %+v", rep)
	}
}

func TestIndexUnreadableAndBinaryFilesAreSkipped(t *testing.T) {
	s, path := memtest.Fixture(t)
	dir := t.TempDir()
	bin := dir + "/bin.md"
	os.WriteFile(bin, []byte{0, 1, 2, 3, 0, 0, 0, 5}, 0o644)
	rep, err := Index(context.Background(), s, Options{Paths: []string{dir + "/missing.md", bin, path}, Embedder: memtest.NewWordsEmbedder()})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Skipped != 2 || rep.NewTurns != 3 || len(rep.Problems) != 2 {
		t.Errorf("report %+v, want two files skipped with reasons and the good one indexed", rep)
	}
}

func TestIndexFullResetsOnlyTheNamedHistories(t *testing.T) {
	s, shop := memtest.Fixture(t)
	api := memtest.SecondHistory(t)
	emb := memtest.NewWordsEmbedder()
	mustIndex(t, s, emb, shop)
	mustIndex(t, s, emb, api)
	rep, err := Index(context.Background(), s, Options{Paths: []string{api}, Embedder: emb, Full: true})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Embedded != 1 || len(rep.Problems) != 0 {
		t.Errorf("--full of one history: %+v; want its one turn re-embedded and the other history's vectors kept", rep)
	}
	known, err := s.KnownFiles(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(known) != 2 {
		t.Fatalf("known files after --full of one history: %v; want both, so a plain 'deja index' still reads the other", known)
	}
	memtest.AppendFile(t, shop, "\n#### Now shrink it further with distroless  \n\nSwitched the runtime stage to distroless.\n")
	rep = mustIndex(t, s, emb, known...)
	if rep.Read != 1 || rep.NewTurns != 1 {
		t.Errorf("plain index after --full of the other history: %+v; want the appended turn read", rep)
	}
	if r := mustRecall(t, s, emb, "distroless", recall.Keyword); len(r.Results) != 1 {
		t.Errorf("the appended turn is not recalled: %+v", r.Results)
	}
}

// cutAfter truncates the file just before the first line holding marker.
func cutAfter(t *testing.T, path, marker string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	i := strings.Index(string(data), marker)
	if i < 0 {
		t.Fatalf("%q not in %s", marker, path)
	}
	if err := os.WriteFile(path, data[:i], 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestIndexKeepsTurnsCutFromASession(t *testing.T) {
	for _, grown := range []bool{false, true} {
		name := "whole re-read"
		if grown {
			name = "file grew again"
		}
		t.Run(name, func(t *testing.T) {
			s, path := memtest.Fixture(t)
			memtest.AppendFile(t, path, memtest.LongSession)
			emb := memtest.NewWordsEmbedder()
			mustIndex(t, s, emb, path)
			id := sessionIDs(t, s)[0] // newest first
			cutAfter(t, path, "#### Log every rejected login")
			if grown {
				// A new session makes the file longer than before, so
				// only the cut session onwards is read again.
				memtest.AppendFile(t, path, strings.Repeat("\n", len(memtest.LongSession))+memtest.ThirdSession)
			}
			mustIndex(t, s, emb, path)
			d, err := digest.Session(context.Background(), s, id)
			if err != nil {
				t.Fatal(err)
			}
			if len(d.Turns) != 3 {
				t.Errorf("session cut by hand has %d turns, want its 3", len(d.Turns))
			}
			for _, q := range []string{"slog", "RATE_LIMIT_BURST"} {
				if r := mustRecall(t, s, emb, q, recall.Keyword); len(r.Results) == 0 || r.Results[0].SessionID != id {
					t.Errorf("a turn cut from the file is no longer recalled by %q: %+v", q, r.Results)
				}
			}
		})
	}
}

func TestIndexKeepsALastSessionCutAndReplaced(t *testing.T) {
	s, path := memtest.Fixture(t)
	memtest.AppendFile(t, path, memtest.LongSession)
	emb := memtest.NewWordsEmbedder()
	mustIndex(t, s, emb, path)
	id := sessionIDs(t, s)[0]
	// The last session is cut out whole and aider starts a longer one at
	// the same byte: only that byte onwards is read again.
	cutAfter(t, path, "\n# aider chat started at 2026-07-19")
	memtest.AppendFile(t, path, strings.Replace(memtest.ThirdSession, "08:15:00", "09:00:00", 1)+strings.Repeat("padding line\n", 40))
	mustIndex(t, s, emb, path)
	d, err := digest.Session(context.Background(), s, id)
	if err != nil {
		t.Fatalf("the cut session is gone from the store: %v", err)
	}
	if d.Present || len(d.Turns) != 3 {
		t.Errorf("cut session: present %v, %d turns; want it kept, marked gone, with its 3 turns", d.Present, len(d.Turns))
	}
}

func TestIndexKeepsIDsWhenAnEarlierSessionIsCutOut(t *testing.T) {
	s, path := memtest.Fixture(t)
	first := strings.Replace(memtest.ThirdSession, "Add rate limiting to the login endpoint", "Add a health check endpoint", 1)
	first = strings.Replace(first, "token bucket limiter in middleware/ratelimit.go", "handler in health/check.go", 1)
	memtest.AppendFile(t, path, first+memtest.ThirdSession)
	emb := memtest.NewWordsEmbedder()
	mustIndex(t, s, emb, path)
	byFirst := map[string]string{}
	for _, id := range sessionIDs(t, s) {
		d, err := digest.Session(context.Background(), s, id)
		if err != nil {
			t.Fatal(err)
		}
		byFirst[d.First] = id
	}
	health, limit := byFirst["Add a health check endpoint"], byFirst["Add rate limiting to the login endpoint"]
	if !strings.HasSuffix(limit, "-2") || limit != health+"-2" {
		t.Fatalf("same-second sessions got IDs %q and %q, want a -2 for the second", health, limit)
	}
	// Cut the first of the two out by hand.
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(string(data), first, "", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	mustIndex(t, s, emb, path)
	for id, want := range map[string]struct {
		first   string
		present bool
	}{health: {"Add a health check endpoint", false}, limit: {"Add rate limiting to the login endpoint", true}} {
		d, err := digest.Session(context.Background(), s, id)
		if err != nil {
			t.Fatal(err)
		}
		if d.First != want.first || d.Present != want.present || len(d.Turns) != 1 {
			t.Errorf("%s: first %q, present %v, %d turns; want %q, present %v, 1 turn", id, d.First, d.Present, len(d.Turns), want.first, want.present)
		}
	}
	if n := len(sessionIDs(t, s)); n != 4 {
		t.Errorf("%d sessions, want the 4 indexed before, none stored twice", n)
	}
}

func TestIndexFileDeletedWhileReadIsMissing(t *testing.T) {
	s, path := memtest.Fixture(t)
	emb := memtest.NewWordsEmbedder()
	mustIndex(t, s, emb, path)
	memtest.AppendFile(t, path, memtest.ThirdSession)
	rep, err := Index(context.Background(), s, Options{Paths: []string{path}, Embedder: emb,
		open: func(name string) (*os.File, error) {
			if err := os.Remove(name); err != nil {
				t.Fatal(err)
			}
			return os.Open(name)
		}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Missing != 1 || rep.Skipped != 0 || len(rep.Problems) != 0 {
		t.Errorf("history deleted between its Stat and its read: %+v; want it counted missing, with no problem", rep)
	}
	if n := len(sessionIDs(t, s)); n != 2 {
		t.Errorf("%d sessions after the history was deleted, want its 2 kept", n)
	}
}

// storedTurns lists a session's stored turns as "index:user" in order.
func storedTurns(t *testing.T, s *store.Store, id string) []string {
	t.Helper()
	rows, err := memtest.RawDB(t, s).Query(`SELECT turn, user FROM turns WHERE session_id = ? ORDER BY turn`, id)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var i int
		var u string
		if err := rows.Scan(&i, &u); err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprintf("%d:%s", i, u))
	}
	return out
}

// presentSessions lists the sessions the file holds now, each with its
// stored turns.
func presentSessions(t *testing.T, s *store.Store) map[string][]string {
	t.Helper()
	list, err := digest.Sessions(context.Background(), s, recall.Scope{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, si := range list {
		if si.Present {
			out[si.ID] = storedTurns(t, s, si.ID)
		}
	}
	return out
}

func TestIndexCutAndRestoreOfAHeaderlessHistoryLeavesNoPhantomTurns(t *testing.T) {
	const (
		one   = "#### Add a health check endpoint  \n\nAdded health/check.go.\n\n"
		two   = "#### Log every rejected login  \n\nThe limiter logs through slog.\n\n"
		three = "#### Make the bucket size configurable  \n\nAdded RATE_LIMIT_BURST.\n\n"
	)
	whole := []string{"0:Add a health check endpoint", "1:Log every rejected login", "2:Make the bucket size configurable"}
	s, path := memtest.Fixture(t)
	write := func(text string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	emb := memtest.NewWordsEmbedder()
	write(one + two + three)
	mustIndex(t, s, emb, path)
	id := sessionIDs(t, s)[0]

	// The middle turn is cut by hand: the file's one session is the first
	// and third turn, and nothing else.
	write(one + three)
	mustIndex(t, s, emb, path)
	now := presentSessions(t, s)
	if len(now) != 1 {
		t.Fatalf("after the cut the file's sessions are %v; want one", now)
	}
	for cut, turns := range now {
		if want := []string{"0:Add a health check endpoint", "1:Make the bucket size configurable"}; !slices.Equal(turns, want) {
			t.Errorf("session %s after the cut holds %q; want %q, with no phantom turn", cut, turns, want)
		}
	}
	if got := storedTurns(t, s, id); !slices.Equal(got, whole) {
		t.Errorf("the session as it was (%s) holds %q; want it kept whole, %q", id, got, whole)
	}

	// Restored: the file's session is whole again.
	write(one + two + three)
	mustIndex(t, s, emb, path)
	for restored, turns := range presentSessions(t, s) {
		if !slices.Equal(turns, whole) {
			t.Errorf("session %s after the restore holds %q; want %q", restored, turns, whole)
		}
	}
	if r := mustRecall(t, s, emb, "RATE_LIMIT_BURST", recall.Keyword); len(r.Results) == 0 {
		t.Error("the restored history's last turn is not recalled")
	}
}

func TestIndexFileRewrittenWithTheSameHeaderTimesIsNotMixed(t *testing.T) {
	s, path := memtest.Fixture(t)
	emb := memtest.NewWordsEmbedder()
	old := "\n# aider chat started at 2026-07-19 08:15:00\n\n" +
		"#### Add rate limiting to the login endpoint  \n\nA token bucket in middleware/ratelimit.go.\n\n" +
		"#### Log every rejected login  \n\nThe limiter logs through slog.\n\n" +
		"#### Make the bucket size configurable  \n\nAdded RATE_LIMIT_BURST.\n"
	if err := os.WriteFile(path, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	mustIndex(t, s, emb, path)
	id := sessionIDs(t, s)[0]
	// Another history written over it, with a session started in the same
	// second (a restored backup, a copy from another machine).
	rewritten := "\n# aider chat started at 2026-07-19 08:15:00\n\n#### Switch the CI to GitHub Actions  \n\nAdded .github/workflows/ci.yml.\n"
	if err := os.WriteFile(path, []byte(rewritten), 0o644); err != nil {
		t.Fatal(err)
	}
	mustIndex(t, s, emb, path)
	now := presentSessions(t, s)
	if len(now) != 1 {
		t.Fatalf("the rewritten file's sessions are %v; want one", now)
	}
	for nid, turns := range now {
		if want := []string{"0:Switch the CI to GitHub Actions"}; !slices.Equal(turns, want) || nid == id {
			t.Errorf("rewritten session %s holds %q; want %q under an ID of its own, not %s", nid, turns, want, id)
		}
	}
	d, err := digest.Session(context.Background(), s, id)
	if err != nil {
		t.Fatalf("the old session is gone: %v", err)
	}
	if d.Present || len(d.Turns) != 3 {
		t.Errorf("old session: present %v, %d turns; want it kept whole and marked gone, as a cut session is", d.Present, len(d.Turns))
	}
}

func TestIndexDatesOutsideTheCalendarAreTextAfterRealDates(t *testing.T) {
	s, path := memtest.Fixture(t)
	emb := memtest.NewWordsEmbedder()
	var text strings.Builder
	for _, when := range []string{"0000-01-01 00:00:00", "1677-06-01 12:00:00", "2262-06-01 12:00:00", "9999-12-31 23:59:59", "2026-07-19 08:15:00"} {
		fmt.Fprintf(&text, "\n# aider chat started at %s\n\n#### Session of %s about the tenant filter  \n\nDone.\n", when, when[:4])
	}
	if err := os.WriteFile(path, []byte(text.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	mustIndex(t, s, emb, path)
	list, err := digest.Sessions(context.Background(), s, recall.Scope{})
	if err != nil {
		t.Fatal(err)
	}
	var years []int
	for _, si := range list {
		years = append(years, si.Started.Year())
	}
	if len(years) != 5 || years[0] != 2026 {
		t.Fatalf("sessions by start: years %v; want the 2026 one first, the others after it", years)
	}
	if got, want := years[1:], []int{0, 1677, 2262, 9999}; !slices.Equal(slices.Sorted(slices.Values(got)), want) {
		t.Errorf("undated sessions keep years %v; want %v kept as text", got, want)
	}
	// Read whole again, each session is still the one stored.
	if _, err := memtest.RawDB(t, s).Exec(`UPDATE files SET fingerprint = x''`); err != nil {
		t.Fatal(err)
	}
	memtest.AppendFile(t, path, "\n#### One more about the tenant filter  \n\nDone too.\n")
	mustIndex(t, s, emb, path)
	if n := len(sessionIDs(t, s)); n != 5 {
		t.Errorf("%d sessions after a whole re-read; want the same 5", n)
	}
	for _, sc := range []recall.Scope{
		{Since: time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)},
		{Until: time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC)},
		{Since: time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC), Until: time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC)},
	} {
		list, err := digest.Sessions(context.Background(), s, sc)
		if err != nil {
			t.Fatal(err)
		}
		if len(list) != 1 || list[0].Started.Year() != 2026 {
			t.Errorf("sessions in %v..%v: %d; want the 2026 one only", sc.Since, sc.Until, len(list))
		}
		for _, mode := range []recall.Mode{recall.Keyword, recall.Semantic} {
			r, err := recall.Recall(context.Background(), s, recall.Options{Query: "tenant filter", Mode: mode, Limit: 10, Scope: sc, Embedder: emb})
			if err != nil {
				t.Fatal(err)
			}
			for _, res := range r.Results {
				if res.Started.Year() != 2026 {
					t.Errorf("%v recall in %v..%v found a session of %d", mode, sc.Since, sc.Until, res.Started.Year())
				}
			}
		}
	}
}

// benchmarkIndex indexes the history write makes, afresh each iteration,
// and reports the time per unit (turn or record): flat across sizes when
// indexing is linear.
func benchmarkIndex(b *testing.B, n int, unit string, write func(testing.TB, string, int)) {
	dir := b.TempDir()
	path := filepath.Join(dir, "p", aider.HistoryFileName)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		b.Fatal(err)
	}
	write(b, path, n)
	emb := memtest.NewWordsEmbedder()
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		s, err := store.Open(context.Background(), filepath.Join(dir, fmt.Sprintf("data%d", i)))
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if _, err := Index(context.Background(), s, Options{Paths: []string{path}, Embedder: emb}); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		s.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/"+unit)
}

// BenchmarkIndexTurnRecords indexes one turn of more and more records;
// comparing every record with those before it once made this quadratic.
func BenchmarkIndexTurnRecords(b *testing.B) {
	for _, n := range []int{75000, 150000, 300000} {
		b.Run(fmt.Sprintf("records=%d", n), func(b *testing.B) { benchmarkIndex(b, n, "record", manyRecordsHistory) })
	}
}

// BenchmarkIndexSessionTurns indexes one session of more and more turns.
func BenchmarkIndexSessionTurns(b *testing.B) {
	for _, n := range []int{10000, 20000, 40000} {
		b.Run(fmt.Sprintf("turns=%d", n), func(b *testing.B) { benchmarkIndex(b, n, "turn", memtest.LongSessionHistory) })
	}
}

func TestIndexKeepsTurnLinesOfTheFile(t *testing.T) {
	s, path := memtest.Fixture(t)
	emb := memtest.NewWordsEmbedder()
	mustIndex(t, s, emb, path)
	memtest.AppendFile(t, path, memtest.LongSession)
	mustIndex(t, s, emb, path)
	memtest.AppendFile(t, path, "\n#### One more question about distroless  \n\nSwitched to distroless.\n")
	mustIndex(t, s, emb, path)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	rows, err := memtest.RawDB(t, s).Query(`SELECT line, user FROM turns WHERE user != ''`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var line int
		var user string
		if err := rows.Scan(&line, &user); err != nil {
			t.Fatal(err)
		}
		n++
		if line < 1 || line > len(lines) || !strings.Contains(lines[line-1], strings.SplitN(user, "\n", 2)[0]) {
			t.Errorf("turn %q is stored at line %d, which is not where the file has it", user, line)
		}
	}
	// The fixture's "/run" line is a command, not a question.
	if n != 7 {
		t.Errorf("checked %d turns, want 7", n)
	}
}

// ledgerDump is everything the store holds of its sessions, turns,
// files and tombstones but the turns' text and vectors (see storeDump), in
// a stable order, for comparing two stores.
func ledgerDump(t *testing.T, s *store.Store) string {
	t.Helper()
	rows, err := memtest.RawDB(t, s).Query(`
		SELECT s.id, s.path, s.project, s.harness, s.parent, s.subagent, s.marker, s.ordinal, coalesce(s.started, ''),
			s.header, s.offset, s.end_offset, s.present,
			coalesce(t.turn, -2), coalesce(t.line, 0), coalesce(t.hash, ''), coalesce(t.actions, ''), coalesce(t.time_ns, 0)
		FROM sessions s LEFT JOIN turns t ON t.session_id = s.id ORDER BY s.id, t.turn`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var b strings.Builder
	for rows.Next() {
		var id, path, project, harnessName, parent, marker, started, header, hash, actions string
		var subagent bool
		var ordinal, offset, end, present, turn, line int
		var timeNS int64
		if err := rows.Scan(&id, &path, &project, &harnessName, &parent, &subagent, &marker, &ordinal, &started,
			&header, &offset, &end, &present, &turn, &line, &hash, &actions, &timeNS); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s %s %s %s parent %q %v %q %d %s %q %d-%d %d turn %d line %d %s %q %d\n",
			id, path, project, harnessName, parent, subagent, marker, ordinal, started, header, offset, end, present, turn, line, hash, actions, timeNS)
	}
	var files, tombstones string
	memtest.RawDB(t, s).QueryRow(`SELECT group_concat(path || ' ' || size || ' ' || last_offset || ' ' || last_ordinal || ' ' || hex(fingerprint) || ' ' || harness || ' ' || full_pending, ';')
		FROM (SELECT * FROM files ORDER BY path)`).Scan(&files)
	memtest.RawDB(t, s).QueryRow(`SELECT coalesce(group_concat(session_id || ' ' || path, ';'), '') FROM (SELECT * FROM tombstones ORDER BY session_id)`).Scan(&tombstones)
	return b.String() + files + "\ntombstones: " + tombstones
}

func TestIndexWindowByWindowIsIndexWhole(t *testing.T) {
	if racebuild.Enabled {
		// Every corpus history indexed twice, one window at a time: 49 s
		// under the race detector on 2 cores, through the same pipeline
		// the other index tests run under it. ./test.sh runs this package
		// again without it, and this test there.
		t.Skip("runs without -race (./test.sh's second memory step)")
	}
	corpus, _ := filepath.Glob("../../../shared/aider/corpus/*.md")
	if len(corpus) == 0 {
		t.Log("../../shared/aider/corpus is absent: checking the test histories only")
	}
	dir := t.TempDir()
	same := filepath.Join(dir, "same-second", aider.HistoryFileName)
	os.MkdirAll(filepath.Dir(same), 0o755)
	// Two launches in one second, a headerless start and a header split by
	// a window edge.
	os.WriteFile(same, []byte("#### before any header  \n\nok\n"+memtest.ThirdSession+memtest.ThirdSession+memtest.LongSession), 0o644)
	for _, src := range append([]string{"../testdata/history.md", same}, corpus...) {
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, "p", aider.HistoryFileName)
		os.MkdirAll(filepath.Dir(path), 0o755)
		var dumps []string
		// Whole, a session at a time, and a few bytes at a time; then the
		// same after a session is appended (a re-read from the last one).
		for _, mode := range []struct {
			window int
			stream int64
		}{{1 << 30, 0}, {1, 0}, {1 << 30, 1}, {300, 1}} {
			window := mode.window
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			s, err := store.Open(context.Background(), filepath.Join(dir, fmt.Sprintf("data-%s-%d-%d", filepath.Base(src), window, mode.stream)))
			if err != nil {
				t.Fatal(err)
			}
			// Streamed (stream 1) in pieces of about window bytes.
			opts := Options{Paths: []string{path}, window: window, streamAbove: mode.stream, chunk: 500}
			if _, err := Index(context.Background(), s, opts); err != nil {
				t.Fatal(err)
			}
			memtest.AppendFile(t, path, memtest.ThirdSession)
			if _, err := Index(context.Background(), s, opts); err != nil {
				t.Fatal(err)
			}
			dumps = append(dumps, ledgerDump(t, s))
			s.Close()
		}
		for i, how := range []string{"window by window", "streamed", "streamed in pieces"} {
			if dumps[i+1] != dumps[0] {
				t.Errorf("%s: indexed %s, the store differs from one indexed whole:\n%s\nwhole:\n%s", src, how, dumps[i+1], dumps[0])
			}
		}
	}
}
