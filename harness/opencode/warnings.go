package opencode

import (
	"fmt"
	"sort"

	"github.com/deja-dev/deja/harness"
)

// knownParts are the part types of message-v2.ts's Part union; others are
// a newer release's, skipped and counted.
var knownParts = map[string]bool{
	"text": true, "reasoning": true, "tool": true, "step-start": true, "step-finish": true,
	"snapshot": true, "patch": true, "file": true, "agent": true, "subtask": true,
	"retry": true, "compaction": true,
}

// skipped counts what a read left out, by kind, so a damaged store yields
// one warning per kind.
type skipped map[string]int

func (s skipped) add(what string) { s[what]++ }

// unknownPart counts a part of a type deja does not know, reporting
// whether it was one.
func (s skipped) unknownPart(p *partInfo) bool {
	if knownParts[p.Type] {
		return false
	}
	s.add("parts of unknown type " + harness.Quoted(p.Type))
	return true
}

// unknownRole counts a message whose role is neither user nor assistant.
func (s skipped) unknownRole(m *messageInfo) bool {
	if m.Role == "user" || m.Role == "assistant" {
		return false
	}
	s.add(fmt.Sprintf("messages of unknown role %q", m.Role))
	return true
}

func (s skipped) list() []string {
	var out []string
	for what, n := range s {
		out = append(out, fmt.Sprintf("skipped %s: %d", what, n))
	}
	sort.Strings(out)
	return out
}
