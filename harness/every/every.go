// Package every names every agent reader deja has, in the order a
// history is offered to them (Registry.Detect): the one list the command
// line, the eval and the tests that cover every reader share.
package every

import (
	"github.com/deja-dev/deja/aider"
	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/amp"
	"github.com/deja-dev/deja/harness/antigravity"
	"github.com/deja-dev/deja/harness/claude"
	"github.com/deja-dev/deja/harness/cline"
	"github.com/deja-dev/deja/harness/codex"
	"github.com/deja-dev/deja/harness/continuedev"
	"github.com/deja-dev/deja/harness/copilot"
	"github.com/deja-dev/deja/harness/crush"
	"github.com/deja-dev/deja/harness/cursor"
	"github.com/deja-dev/deja/harness/dsh"
	"github.com/deja-dev/deja/harness/factory"
	"github.com/deja-dev/deja/harness/gemini"
	"github.com/deja-dev/deja/harness/goose"
	"github.com/deja-dev/deja/harness/grok"
	"github.com/deja-dev/deja/harness/hermes"
	"github.com/deja-dev/deja/harness/kimi"
	"github.com/deja-dev/deja/harness/kiro"
	"github.com/deja-dev/deja/harness/opencode"
	"github.com/deja-dev/deja/harness/pi"
	"github.com/deja-dev/deja/harness/qwen"
	"github.com/deja-dev/deja/harness/zed"
)

// Readers returns every agent reader, a new registry each call (callers
// may append to it).
func Readers() harness.Registry {
	return harness.Registry{codex.Reader{}, gemini.Reader{}, amp.Reader{}, cline.Reader{}, cursor.Reader{}, copilot.Reader{},
		dsh.Reader{}, pi.Reader{}, qwen.Reader{}, kimi.Reader{}, kiro.Reader{}, continuedev.Reader{}, factory.Reader{}, grok.Reader{}, claude.Reader{}, opencode.Reader{}, crush.Reader{}, zed.Reader{}, hermes.Reader{}, goose.Reader{}, antigravity.Reader{}, aider.Reader{}}
}
