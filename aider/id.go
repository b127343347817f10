package aider

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/deja-dev/deja/harness"
)

// idTimeLayout is the start time as it appears in a session ID.
const idTimeLayout = "20060102T150405"

// PathHash is the first 12 hex digits of the SHA-256 of a history's
// absolute, cleaned path (resolve symlinks first; see userfile.ResolvePath). Moving a
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

// ValidID reports a session ID of the shape SessionID makes, with the
// -2, -3 … a second and third session of the same start get.
func (Reader) ValidID(id string) bool {
	rest, ok := strings.CutPrefix(id, Name+"-")
	if !ok || len(rest) < 14 || !harness.IsHex(rest[:12], 12) || rest[12] != '-' {
		return false
	}
	parts := strings.Split(rest[13:], "-")
	if len(parts) > 2 || len(parts) == 2 && !digits(parts[1]) {
		return false
	}
	if _, err := time.Parse(idTimeLayout, parts[0]); err == nil && len(parts[0]) == len(idTimeLayout) {
		return true
	}
	return digits(parts[0])
}

func digits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
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
