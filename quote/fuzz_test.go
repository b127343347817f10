package quote

import (
	"strings"
	"testing"
)

// FuzzBlock: whatever the text, a reader of Markdown finds all of it inside
// the one labelled block, and nothing but the label outside.
func FuzzBlock(f *testing.F) {
	for _, s := range []string{attack, "```", "````\n```", "    ```", "x\r\n\x1b[0m", "\u202e```"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Block(s, false)
		outside, inside, labelled := Split(out)
		if !labelled || outside != Label+":\n\n" {
			t.Fatalf("outside the block: %q (labelled %v)\nfrom %q", outside, labelled, s)
		}
		if want := strings.TrimRight(Text(s), "\n") + "\n"; inside != want {
			t.Fatalf("inside the block %q, want %q", inside, want)
		}
	})
}
