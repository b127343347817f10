package gemini

import (
	"testing"

	"github.com/deja-dev/deja/harness/harnesstest"
)

func TestResumeCommand(t *testing.T) {
	harnesstest.CheckResumes(t, Reader{}, []harnesstest.Resume{
		{"gemini-aaaa1111-0000-4000-8000-000000000001", "/srv/garden", "cd /srv/garden && gemini --resume aaaa1111-0000-4000-8000-000000000001"},
		{"gemini-aaaa1111-0000-4000-8000-000000000001", "/srv/my garden", "cd '/srv/my garden' && gemini --resume aaaa1111-0000-4000-8000-000000000001"},
		// Gemini CLI finds sessions per project: without it, no command.
		{"gemini-aaaa1111-0000-4000-8000-000000000001", "", ""},
		{"claude-aaaa1111", "/srv", ""},
		{"gemini-", "/srv", ""},
	})
}
