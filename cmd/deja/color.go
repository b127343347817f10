package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/deja-dev/deja/memory/recall"
)

// colorFlag is the global --color: auto (on a terminal, unless NO_COLOR
// is set or TERM is dumb), always, or never.
type colorFlag struct{ value string }

func addColorFlag(root *cobra.Command, io *IO) {
	f := &colorFlag{value: "auto"}
	root.PersistentFlags().StringVar(&f.value, "color", "auto", "colour and match highlighting: auto (on a terminal, unless NO_COLOR is set), always or never")
	_ = root.RegisterFlagCompletionFunc("color", fixedCompletion("auto", "always", "never"))
	root.PersistentFlags().BoolVarP(&io.Quiet, "quiet", "q", false, "no notices on stderr (which embedder answers); warnings and errors still")
	root.PersistentFlags().BoolVarP(&io.Verbose, "verbose", "v", false, "every notice, every time (the embedder line is otherwise shown when it changes)")
	root.PersistentPreRunE = func(cmd *cobra.Command, args []string) error {
		switch f.value {
		case "always":
			io.Color = true
		case "never":
			io.Color = false
		case "auto", "":
			io.Color = io.OutTTY && os.Getenv("NO_COLOR") == "" && os.Getenv("TERM") != "dumb"
		default:
			return usageError(cmd, fmt.Errorf("--color %q: use auto, always or never", f.value))
		}
		return nil
	}
}

// The SGR sequences deja draws with, as rg's defaults: the turn's name in
// magenta, the query's words in bold red, labels dim.
const (
	sgrRef   = "\x1b[35m"
	sgrMatch = "\x1b[1;31m"
	sgrDim   = "\x1b[2m"
	sgrReset = "\x1b[0m"
)

// paint wraps s in an SGR sequence when colour is on. s must already be
// inert (quote.Line): history text never brings its own escapes.
func (io *IO) paint(sgr, s string) string {
	if !io.Color || s == "" {
		return s
	}
	return sgr + s + sgrReset
}

// highlight marks the query's words in s (already inert) when colour is on.
func (io *IO) highlight(s, query string) string {
	if !io.Color {
		return s
	}
	spans := recall.SnippetWords(s, query)
	if len(spans) == 0 {
		return s
	}
	var b strings.Builder
	at := 0
	for _, sp := range spans {
		b.WriteString(s[at:sp[0]])
		b.WriteString(sgrMatch + s[sp[0]:sp[1]] + sgrReset)
		at = sp[1]
	}
	b.WriteString(s[at:])
	return b.String()
}
