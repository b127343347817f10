package lazyre

import (
	"slices"
	"testing"
)

func TestCompiledOnFirstUse(t *testing.T) {
	r := New(`a(b+)c`)
	if r.re != nil {
		t.Fatal("compiled before its first use")
	}
	if got := r.FindStringSubmatch("xabbc"); len(got) != 2 || got[1] != "bb" {
		t.Errorf("FindStringSubmatch = %q, want the group bb", got)
	}
	if r.re == nil {
		t.Error("not kept after its first use")
	}
	if got := r.ReplaceAllString("abc abbc", "-"); got != "- -" {
		t.Errorf("ReplaceAllString = %q", got)
	}
}

func TestBadPatternPanicsWhenUsed(t *testing.T) {
	r := New(`(`)
	defer func() {
		if recover() == nil {
			t.Error("a pattern that does not compile matched without a panic")
		}
	}()
	r.MatchString("x")
}

func TestCompileAllFindsABadPattern(t *testing.T) {
	if err := CompileAll(); err == nil {
		t.Error("CompileAll passed with a pattern that does not compile declared")
	}
	mu.Lock()
	all = slices.DeleteFunc(all, func(r *Regexp) bool { return r.pattern == `(` })
	mu.Unlock()
	if err := CompileAll(); err != nil {
		t.Errorf("CompileAll with good patterns: %v", err)
	}
}

// TestUnlistedIsNotListed: a pattern made by Unlisted is compiled on its
// first use like New's, but CompileAll does not see it (its table's own
// test compiles it).
func TestUnlistedIsNotListed(t *testing.T) {
	bad := Unlisted(`(`)
	if err := CompileAll(); err != nil {
		t.Fatalf("CompileAll saw an unlisted pattern: %v", err)
	}
	if got := Unlisted(`x+`).FindStringSubmatchIndex("axxb"); !slices.Equal(got, []int{1, 3}) {
		t.Errorf("FindStringSubmatchIndex = %v, want [1 3]", got)
	}
	defer func() {
		if recover() == nil {
			t.Error("an unlisted pattern that does not compile matched without a panic")
		}
	}()
	bad.MatchString("x")
}
