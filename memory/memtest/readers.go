package memtest

import (
	"github.com/deja-dev/deja/aider"
	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/claude"
	"github.com/deja-dev/deja/harness/codex"
	"github.com/deja-dev/deja/harness/gemini"
	"github.com/deja-dev/deja/harness/opencode"
)

// EveryReader is the first five readers, whose histories the index's
// privacy and rebuild tests write (every.Readers is every reader).
var EveryReader = harness.Registry{codex.Reader{}, gemini.Reader{}, claude.Reader{}, opencode.Reader{}, aider.Reader{}}
