package codex

import (
	"path/filepath"
	"strings"
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
	if !isUUID(id) {
		return ""
	}
	return id
}

func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i, c := range s {
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
				return false
			}
		}
	}
	return true
}
