package aider

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"time"
)

// idTimeLayout is the start time as it appears in a session ID.
const idTimeLayout = "20060102T150405"

// PathHash is the first 12 hex digits of the SHA-256 of a history's
// absolute, cleaned path (resolve symlinks first; see ResolvePath). Moving a
// history therefore changes the IDs of its sessions.
func PathHash(absPath string) string {
	sum := sha256.Sum256([]byte(absPath))
	return hex.EncodeToString(sum[:6])
}

// SessionID names a session: aider-<path hash>-<YYYYMMDDTHHMMSS> when its
// header time is known, else aider-<path hash>-<ordinal>. Callers add -2, -3 …
// for a second and third session with the same base ID.
func SessionID(pathHash string, started time.Time, ordinal int) string {
	if started.IsZero() {
		return fmt.Sprintf("aider-%s-%d", pathHash, ordinal)
	}
	return "aider-" + pathHash + "-" + started.Format(idTimeLayout)
}

// freeID returns base, or base-2, base-3 … when base is taken in this file
// or reserved by the caller.
func (p *parser) freeID(base string) string {
	id := base
	n, seen := p.suffix[base]
	if seen {
		id = base + "-" + strconv.Itoa(n)
	} else {
		n = 1
	}
	for p.ids[id] || (p.opts.Reserved != nil && p.opts.Reserved(id)) {
		n++
		id = base + "-" + strconv.Itoa(n)
	}
	p.suffix[base] = n + 1
	p.ids[id] = true
	return id
}
