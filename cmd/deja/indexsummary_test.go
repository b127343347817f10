package main

import (
	"strings"
	"testing"
	"time"

	"github.com/deja-dev/deja/memory/index"
)

// TestIndexSummaryCounts: the index summary counts in words as people
// read them, one thing singular and others plural, --full's turns
// written included.
func TestIndexSummaryCounts(t *testing.T) {
	for _, tc := range []struct {
		rep  index.Report
		full bool
		want string
	}{
		{index.Report{Files: 1, Read: 1, Sessions: 1, NewTurns: 1, Embedded: 1, Took: time.Second},
			false, "indexed 1 file (1 read), 1 session, 1 new turn, 1 embedded (e), 0 skipped in 1s\n"},
		{index.Report{Files: 2, Read: 2, Sessions: 2, NewTurns: 2, Embedded: 2, Took: time.Second},
			false, "indexed 2 files (2 read), 2 sessions, 2 new turns, 2 embedded (e), 0 skipped in 1s\n"},
		{index.Report{Files: 1, Read: 1, Sessions: 1, NewTurns: 1, Took: time.Second},
			true, "indexed 1 file (1 read), 1 session, 1 turn written, 0 embedded (e), 0 skipped in 1s\n"},
		{index.Report{Took: time.Second},
			true, "indexed 0 files (0 read), 0 sessions, 0 turns written, 0 embedded (e), 0 skipped in 1s\n"},
	} {
		var out strings.Builder
		printIndexed(&IO{Out: &out}, tc.rep, "e", tc.full)
		if out.String() != tc.want {
			t.Errorf("summary = %q, want %q", out.String(), tc.want)
		}
	}
}
