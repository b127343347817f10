package redact

import (
	"encoding/base64"
	"encoding/json"
	"strings"
)

// publicLookalike reports a random-looking token that is public by its
// shape or its place: an address or signature on a chain, a content ID, a
// KSUID, a document ID, a site key, an image, a hashed known_hosts entry,
// a line of a certificate or public key. Secrets of these shapes (a Solana
// secret key is base58 too) are known by the name they are assigned to,
// which runs before this.
func publicLookalike(s string, start, end int) bool {
	t := s[start:end]
	switch {
	case isBase58Public(t), isKSUID(t), isDocumentID(t), isSiteKey(t), isImage(t):
		return true
	case hashedKnownHost(s, start):
		return true
	case strings.Contains(s[strings.LastIndexByte(s[:start], '\n')+1:start], "1337;File="):
		// An iTerm inline image: the file follows the escape's colon.
		return true
	}
	return false
}

// isBase58Public reports base58 (no 0, O, I or l) of the lengths chains
// give public things: Bitcoin addresses (25 to 34), Solana addresses (32
// to 44), IPFS v0 content IDs (46, Qm…), Solana signatures (86 to 88).
func isBase58Public(t string) bool {
	if n := len(t); (n < 25 || n > 46) && (n < 86 || n > 88) {
		return false
	}
	for i := 0; i < len(t); i++ {
		if c := t[i]; !isAlnum(c) || c == '0' || c == 'O' || c == 'I' || c == 'l' {
			return false
		}
	}
	return len(t) != 45 && (len(t) != 46 || strings.HasPrefix(t, "Qm"))
}

// isKSUID reports Segment's KSUID: 27 base62 characters whose first, a
// timestamp's high digits, is 0 to 3 for any time until 2150.
func isKSUID(t string) bool {
	return len(t) == 27 && t[0] >= '0' && t[0] <= '3' && strings.Trim(t, base62) == ""
}

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// isDocumentID reports a Google Docs, Sheets or Drive ID: 44 characters of
// base64url starting with 1, pasted on its own as often as in its URL.
func isDocumentID(t string) bool {
	return len(t) == 44 && t[0] == '1' && !strings.ContainsAny(t, "+/")
}

// isSiteKey reports a reCAPTCHA site key: 6L and 38 more characters. It
// sits in every page's HTML; its secret twin is known by its name.
func isSiteKey(t string) bool {
	return len(t) == 40 && strings.HasPrefix(t, "6L") && !strings.ContainsAny(t, "+/")
}

// isImage reports base64 that starts like an image file: PNG, JPEG, GIF,
// WebP or SVG. A thumbnail in a JSON field has no data: URI to say so.
func isImage(t string) bool {
	for _, p := range [...]string{"iVBORw0KGgo", "/9j/", "R0lGOD", "UklGR", "PHN2Zy", "PD94bWwg"} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}

// hashedKnownHost reports the salt or hash of a hashed known_hosts line,
// |1|salt|hash key-type key: the host's name hashed, nothing secret.
func hashedKnownHost(s string, start int) bool {
	line := s[strings.LastIndexByte(s[:start], '\n')+1 : start]
	return strings.HasPrefix(strings.TrimLeft(line, " \t"), "|1|") && !strings.Contains(line, " ")
}

// isBase64JSON reports base64 of a JSON document with no secret in it: a
// pagination cursor, a JWT's header alone, a Mapbox public token's body.
func isBase64JSON(t string) bool {
	if !strings.HasPrefix(t, "eyJ") && !strings.HasPrefix(t, "WyJ") && !strings.HasPrefix(t, "W3si") {
		return false
	}
	for _, enc := range [...]*base64.Encoding{base64.RawURLEncoding, base64.RawStdEncoding} {
		b, err := enc.DecodeString(strings.TrimRight(t, "="))
		if err != nil || !json.Valid(b) {
			continue
		}
		_, n := Text(string(b))
		return n == 0
	}
	return false
}

// publicBlocks returns the spans of certificate and public key PEM blocks
// in s: their lines are public, however random they look.
func publicBlocks(s string) [][2]int {
	var spans [][2]int
	for i := 0; ; {
		k := strings.Index(s[i:], "-----BEGIN ")
		if k < 0 {
			return spans
		}
		start := i + k
		lineEnd := strings.Index(s[start+len("-----BEGIN "):], "-----")
		if lineEnd < 0 {
			return spans
		}
		label := s[start+len("-----BEGIN ") : start+len("-----BEGIN ")+lineEnd]
		end := len(s)
		if e := strings.Index(s[start:], "-----END "); e >= 0 {
			end = start + e
		}
		if !strings.Contains(label, "PRIVATE") {
			spans = append(spans, [2]int{start, end})
		}
		i = max(end, start+1)
	}
}

// isPublishable reports a key its provider publishes in every page that
// uses it: Stripe's and Mapbox's public keys, PostHog's project key,
// Supabase's publishable key, a reCAPTCHA site key. A name such as
// accessToken does not make one a secret.
func isPublishable(v string) bool {
	for _, p := range [...]string{"pk_live_", "pk_test_", "pk.eyJ", "phc_", "sb_publishable_"} {
		if strings.HasPrefix(v, p) {
			return true
		}
	}
	return isSiteKey(v)
}
