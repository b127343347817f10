package opencode

import (
	"testing"

	"github.com/deja-dev/deja/harness/harnesstest"
)

func TestResumeCommand(t *testing.T) {
	harnesstest.CheckResumes(t, Reader{}, []harnesstest.Resume{
		{"opencode-ses_3e69013d7ffeBnbSOusmvWzwo1", "/srv/cron", "cd /srv/cron && opencode --session ses_3e69013d7ffeBnbSOusmvWzwo1"},
		{"opencode-ses_E1", "", "opencode --session ses_E1"},
		{"opencode-ses_E1", "/srv/it's", `cd '/srv/it'\''s' && opencode --session ses_E1`},
		{"codex-ses_E1", "/srv", ""},
		{"opencode-", "/srv", ""},
	})
}
