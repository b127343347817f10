package quote

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
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

// FuzzText: whatever the text, what Text and Line give holds no control
// byte but line ends and tabs (none for Line), no character that draws as
// nothing or reorders text, and is valid UTF-8 that they leave unchanged.
func FuzzText(f *testing.F) {
	for _, s := range []string{attack, "\x1b]52;c;eA==\a", "\x1bP1$r\x1b\\", "\x1b[?1049h", "\u009b31m",
		"a\U000E0041\uFE0F\u3164\u115F\u202E", "\xff\xfe\x1b", "\r\n\r", "\x1b[1;31m"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, oneLine := range []bool{false, true} {
			out := clean(s, oneLine)
			if !utf8.ValidString(out) {
				t.Fatalf("invalid UTF-8 %q from %q", out, s)
			}
			for _, r := range out {
				if (r == '\n' || r == '\t') && !oneLine {
					continue
				}
				if unsafe(r) || r == '\n' || r == '\t' || unicode.In(r, unicode.Cc, unicode.Cf, unicode.Zl, unicode.Zp, unicode.Variation_Selector, unicode.Other_Default_Ignorable_Code_Point) {
					t.Fatalf("%U left in %q from %q (one line %v)", r, out, s, oneLine)
				}
			}
			if again := clean(out, oneLine); again != out {
				t.Fatalf("not stable: %q then %q", out, again)
			}
		}
	})
}
