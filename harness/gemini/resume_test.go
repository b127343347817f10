package gemini

import "testing"

func TestResumeCommand(t *testing.T) {
	cases := []struct{ id, project, want string }{
		{"gemini-aaaa1111-0000-4000-8000-000000000001", "/srv/garden", "cd /srv/garden && gemini --resume aaaa1111-0000-4000-8000-000000000001"},
		{"gemini-aaaa1111-0000-4000-8000-000000000001", "/srv/my garden", "cd '/srv/my garden' && gemini --resume aaaa1111-0000-4000-8000-000000000001"},
		// Gemini CLI finds sessions per project: without it, no command.
		{"gemini-aaaa1111-0000-4000-8000-000000000001", "", ""},
		{"claude-aaaa1111", "/srv", ""},
		{"gemini-", "/srv", ""},
	}
	for _, c := range cases {
		if got := (Reader{}).ResumeCommand(c.id, c.project); got != c.want {
			t.Errorf("ResumeCommand(%q, %q) = %q, want %q", c.id, c.project, got, c.want)
		}
	}
}
