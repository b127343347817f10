package recall

import (
	"context"
	"fmt"
	"github.com/deja-dev/deja/memory/memtest"
	"github.com/deja-dev/deja/memory/store"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestClosestProjectsPutsTheLikelyOneFirst: a project that holds the
// directory asked for, then a near name, then one beside it; a project
// that is none of these (the home directory, which holds everything,
// or one elsewhere with another name) is not named.
func TestClosestProjectsPutsTheLikelyOneFirst(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	projects := []string{"/home/dev/blog", "/home/dev/shop", "/srv/shop-api", "/home/dev/notes", home, "/srv/codex-lab"}
	for _, c := range []struct {
		dir  string
		want []string
	}{
		{"/home/dev/shop/internal/db", []string{"/home/dev/shop"}},
		{"/home/dev/shopp", []string{"/home/dev/shop", "/home/dev/blog", "/home/dev/notes"}},
		{"/tmp/x/notes", []string{"/home/dev/notes"}},
		{"/srv/shop-apj", []string{"/srv/shop-api", "/srv/codex-lab"}},
		{filepath.Join(home, "src", "nope"), nil},
	} {
		if got := closestProjects(c.dir, projects, 3); !slices.Equal(got, c.want) {
			t.Errorf("closestProjects(%s) = %v, want %v", c.dir, got, c.want)
		}
	}
}

// TestResolveProjectExpandsHome: a quoted '~/src/x' reaches deja as typed.
func TestResolveProjectExpandsHome(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	if err := os.MkdirAll(filepath.Join(home, "src", "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	want, _ := filepath.EvalSymlinks(filepath.Join(home, "src", "x"))
	for _, p := range []string{"~/src/x", " ~/src/x/ "} {
		got, err := ResolveProject(p)
		if err != nil || got != want {
			t.Errorf("ResolveProject(%q) = %q, %v; want %q", p, got, err, want)
		}
	}
	if got, _ := ResolveProject("~"); got != mustEval(t, home) {
		t.Errorf("ResolveProject(~) = %q, want %q", got, home)
	}
}

func mustEval(t *testing.T, p string) string {
	t.Helper()
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestFromMatchesTheWholeUser: --from alice keeps alice's sessions and
// not those of alice@corp, whose name holds the '@' that also parts user
// from machine in a folded session's path, nor of ali.
func TestFromMatchesTheWholeUser(t *testing.T) {
	ctx := context.Background()
	s, path := memtest.Fixture(t)
	mustIndex(t, s, nil, path)
	var turns []store.RemoteTurn
	for i, person := range []string{"alice", "alice@corp", "ali"} {
		turns = append(turns, store.RemoteTurn{
			SharedTurn: store.SharedTurn{Session: fmt.Sprintf("aider-remote-%d", i), Project: filepath.Dir(path), Harness: "aider",
				Hash: fmt.Sprint(i), User: "where is the zebra ledger", Assist: "the zebra ledger of " + person},
			Origin: "host-" + fmt.Sprint(i) + "-abc123", Person: person, Subject: "deja.t.shop.x.y", Seq: uint64(i + 1),
		})
	}
	if _, err := s.ImportTurns(ctx, turns, store.ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		sc   Scope
		want []string
	}{
		{Scope{From: "alice"}, []string{"alice@host-0-abc123"}},
		{Scope{From: "alice@corp"}, []string{"alice@corp@host-1-abc123"}},
		{Scope{From: "ali"}, []string{"ali@host-2-abc123"}},
		{Scope{Mine: true}, nil},
		{Scope{}, []string{"ali@host-2-abc123", "alice@corp@host-1-abc123", "alice@host-0-abc123"}},
	} {
		r, err := Recall(ctx, s, Options{Query: "zebra ledger", Mode: Keyword, Scope: c.sc, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, res := range r.Results {
			got = append(got, res.From)
		}
		slices.Sort(got)
		if !slices.Equal(got, c.want) {
			t.Errorf("%+v found turns from %q, want %q", c.sc, got, c.want)
		}
	}
}
