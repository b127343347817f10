package codex

import (
	"path/filepath"
	"strings"

	"github.com/deja-dev/deja/harness"
)

// SessionID names a Codex session: codex-<id>, the id of its session_meta
// (the UUID at the end of the rollout's name). The file's place is not
// part of it, so an archived or compressed rollout keeps its ID.
func SessionID(id string) string { return "codex-" + id }

// fileID is the UUID that ends a rollout's name,
// rollout-2025-12-25T22-45-23-<uuid>.jsonl[.zst], or "".
func fileID(path string) string {
	name := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(path), ".zst"), ".jsonl")
	if len(name) < 36 {
		return ""
	}
	id := name[len(name)-36:]
	if !harness.IsUUID(id) {
		return ""
	}
	return id
}

// ValidID reports a session ID of the shape Codex documents: codex-<id>,
// the id of session_meta, a UUID (the one that ends the rollout's name);
// and codex-prompt-<hash> for a prompt of history.jsonl (harness.PromptID).
func (Reader) ValidID(id string) bool {
	if harness.IsPromptID(Name, id) {
		return true
	}
	rest, ok := strings.CutPrefix(id, "codex-")
	return ok && harness.IsUUID(rest)
}
