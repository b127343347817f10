package memtest

import (
	"github.com/deja-dev/deja/aider"
	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/claude"
	"github.com/deja-dev/deja/harness/codex"
	"github.com/deja-dev/deja/harness/gemini"
	"github.com/deja-dev/deja/harness/opencode"
) // everyReader reads every format deja reads.
var EveryReader = harness.Registry{codex.Reader{}, gemini.Reader{}, claude.Reader{}, opencode.Reader{}, aider.Reader{}}
