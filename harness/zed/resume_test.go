package zed

import (
	"strings"
	"testing"

	"github.com/deja-dev/deja/harness/harnesstest"
)

// TestResume: Zed reopens a thread only from its agent panel, so there is
// no command, and the refusal says where to look.
func TestResume(t *testing.T) {
	harnesstest.CheckResumes(t, Reader{}, []harnesstest.Resume{
		{"zed-11111111-1111-4111-8111-111111111111", "/home/me/shop", ""},
		{"zed-11111111-1111-4111-8111-111111111111", "", ""},
	})
	for project, want := range map[string]string{
		"/home/me/shop": "open its project in Zed",
		"":              "agent panel's history",
	} {
		if got := (Reader{}).ResumeRefusal("zed-11111111-1111-4111-8111-111111111111", project); !strings.Contains(got, want) {
			t.Errorf("ResumeRefusal(%q) = %q, want it to say %q", project, got, want)
		}
	}
}

func TestValidID(t *testing.T) {
	for id, ok := range map[string]bool{
		"zed-11111111-1111-4111-8111-111111111111": true,
		"zed-thread-a":  true,
		"zed-":          false,
		"zed-a b":       false,
		"zed-../../etc": false,
		"crush-11111111-1111-4111-8111-111111111111": false,
		"zed-" + strings.Repeat("a", 65):             false,
	} {
		if (Reader{}).ValidID(id) != ok {
			t.Errorf("ValidID(%q) = %v", id, !ok)
		}
	}
}
