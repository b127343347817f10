package main

import (
	"strings"
	"testing"
	"time"

	"github.com/deja-dev/deja/memory/index"
)

// TestProgressLineTellsTheTruth: the bar follows the bytes of the file
// being read and the files done, names the file and the phase, is full
// only when the work is, and stays within 80 columns.
func TestProgressLineTellsTheTruth(t *testing.T) {
	cases := []struct {
		p    index.Progress
		want []string
	}{
		{index.Progress{Phase: "parsing", File: "/h/shop/.aider.chat.history.md", Files: 1, FileSize: 29 << 20, FileBytes: 0},
			[]string{"parsing   [          ]   0% 1/1 .aider.chat.history.md 0.0/29.0 MB"}},
		{index.Progress{Phase: "embedding", File: "/h/shop/.aider.chat.history.md", Files: 1, FileSize: 29 << 20, FileBytes: 29 << 19, Done: 300, Total: 1200, Turns: 900},
			[]string{"embedding [=====     ]  50% 1/1 ….history.md 300/1200 to embed · 900 turns 90/s"}},
		// The last window written is not the end of the run: 99 %.
		{index.Progress{Phase: "writing", File: "/h/a.md", Files: 1, FileSize: 4096, FileBytes: 4096},
			[]string{"writing   [========= ]  99% 1/1 a.md 4/4 kB"}},
		// Two files of four done, the third half read.
		{index.Progress{Phase: "parsing", File: "/h/c.jsonl", FileIndex: 2, Files: 4, FilesDone: 2, FileSize: 2 << 20, FileBytes: 1 << 20},
			[]string{"[======    ]  62% 3/4 c.jsonl 1.0/2.0 MB"}},
		{index.Progress{Phase: "filling", Files: 4, FilesDone: 4, Done: 10, Total: 10},
			[]string{"filling   [==========] 100% 10/10 turns lacking vectors"}},
		{index.Progress{Phase: "parsing", File: "/h/" + strings.Repeat("x", 60) + ".jsonl", Files: 100000, FileIndex: 99998, FilesDone: 99998, FileSize: 900 << 20, FileBytes: 100 << 20, Turns: 123456},
			[]string{"99999/100000 …", "x.jsonl 100.0/900.0 MB · 123456 turns"}},
	}
	for _, c := range cases {
		got := progressLine(c.p, 10*time.Second)
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("progress %+v:\n got %q\nwant %q", c.p, got, w)
			}
		}
		if n := len([]rune(got)); n >= 80 {
			t.Errorf("progress line of %d columns: %q", n, got)
		}
	}
}
