package opencode

import "testing"

func TestResumeCommand(t *testing.T) {
	cases := []struct{ id, project, want string }{
		{"opencode-ses_3e69013d7ffeBnbSOusmvWzwo1", "/srv/cron", "cd /srv/cron && opencode --session ses_3e69013d7ffeBnbSOusmvWzwo1"},
		{"opencode-ses_E1", "", "opencode --session ses_E1"},
		{"opencode-ses_E1", "/srv/it's", `cd '/srv/it'\''s' && opencode --session ses_E1`},
		{"codex-ses_E1", "/srv", ""},
		{"opencode-", "/srv", ""},
	}
	for _, c := range cases {
		if got := (Reader{}).ResumeCommand(c.id, c.project); got != c.want {
			t.Errorf("ResumeCommand(%q, %q) = %q, want %q", c.id, c.project, got, c.want)
		}
	}
}
