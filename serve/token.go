package serve

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
)

// MinTokenLength is the shortest token a TCP listener takes: 32
// characters, 128 bits when they are hex digits, as from
// 'openssl rand -hex 16'.
const MinTokenLength = 32

// NewToken returns a random token of 256 bits, hex-encoded, for a TCP
// listener started without one.
func NewToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

// CheckToken refuses a token too short to resist guessing.
func CheckToken(token string) error {
	if len(token) < MinTokenLength {
		return fmt.Errorf("serve: the token has %d characters: use at least %d (128 bits), such as the output of 'openssl rand -hex 16', or give none and deja makes one", len(token), MinTokenLength)
	}
	return nil
}
