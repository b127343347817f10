package memory

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestClosestProjectsPutsTheLikelyOneFirst: a project that holds the
// directory asked for, then a near name, then the rest.
func TestClosestProjectsPutsTheLikelyOneFirst(t *testing.T) {
	projects := []string{"/home/dev/blog", "/home/dev/shop", "/srv/shop-api", "/home/dev/notes"}
	for _, c := range []struct {
		dir  string
		want []string
	}{
		{"/home/dev/shop/internal/db", []string{"/home/dev/shop"}},
		{"/home/dev/shopp", []string{"/home/dev/shop", "/srv/shop-api"}},
		{"/tmp/x/notes", []string{"/home/dev/notes"}},
	} {
		got := closestProjects(c.dir, projects, 3)
		if len(got) != 3 || !slices.Equal(got[:len(c.want)], c.want) {
			t.Errorf("closestProjects(%s) = %v, want %v first", c.dir, got, c.want)
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
