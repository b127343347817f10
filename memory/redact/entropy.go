package redact

import (
	"encoding/base64"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/deja-dev/deja/internal/lazyre"
)

// Random tokens shorter than minRandom are too few characters to tell from
// words. There is no upper bound: a long token is a key file or a
// credentials JSON in base64 as often as an image, and images are known by
// their first bytes (publicLookalike).
const minRandom = 24

// highEntropy finds tokens that look random and that nothing else explains:
// at least minRandom characters of base64 or base64url, mixing upper case,
// lower case and digits, changing character class as often as random text
// does, with the Shannon entropy of random text. Hex is never random enough
// on its own: commit hashes, SHA-256 digests and UUIDs are hex, and a hex
// secret is only recognised by the key it is assigned to.
func highEntropy(s string) []edit {
	var edits []edit
	var public [][2]int
	if strings.Contains(s, "-----BEGIN ") {
		public = publicBlocks(s)
	}
	for i := 0; i < len(s); {
		if !isTokenByte(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && isTokenByte(s[j]) {
			j++
		}
		// Padding ends base64; an = inside a run is key=value.
		end := j
		for end < len(s) && end-j < 2 && s[end] == '=' {
			end++
		}
		if looksRandom(s[i:j]) && !inSpans(public, i) && !explained(s, i, end) {
			edits = append(edits, edit{i, end, "high-entropy"})
		}
		i = end
	}
	return edits
}

func isTokenByte(c byte) bool { return isAlnum(c) || c == '+' || c == '/' || c == '_' || c == '-' }

// looksRandom applies the shape tests, cheapest first.
func looksRandom(t string) bool {
	if len(t) < minRandom {
		return false
	}
	upper, lower, digits := classCounts(t)
	// Random base62 is about 42% upper case and 42% lower; instruction and
	// constant names (VCVTSD2SI_GPR32i32_XMMf64_AVX512) are nearly all one.
	if upper < len(t)/10 || lower < len(t)/10 || digits == 0 || isHex(strings.TrimPrefix(t, "0x")) {
		return false
	}
	return len(t) < 3*classRuns(t) && entropy(t) >= entropyFloor(len(t))
}

// entropyFloor is the entropy, in bits per character, below which a token of
// n characters is not random. Random base62 of 24 characters falls under
// log2(24)-1 = 3.58 bits once in many thousand tokens (its 0.1st percentile
// is 3.72), of 40 under 4.32 about as rarely; beyond 64 characters the
// floor stays at 4.6, well under the 4.8 random text reaches there.
func entropyFloor(n int) float64 { return math.Min(math.Log2(float64(n))-1, 4.6) }

// entropy is t's Shannon entropy in bits per character.
func entropy(t string) float64 {
	var counts [256]int
	for i := 0; i < len(t); i++ {
		counts[t[i]]++
	}
	h := 0.0
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / float64(len(t))
			h -= p * math.Log2(p)
		}
	}
	return h
}

// explained reports random-looking tokens whose context says what they are,
// and that are not secrets.
func explained(s string, start, end int) bool {
	t := s[start:end]
	before := s[:start]
	switch {
	case insideURL(s, start):
		// Path segments and IDs in URLs; a secret in a query string is
		// caught by its key, credentials by urlCredentials.
		return true
	case isPathLike(t):
		return true
	case hasDigestLabel(before), strings.HasPrefix(before[max(0, len(before)-7):], "base64,"):
		// go.sum's h1:…=, sha256:…, and data: URIs.
		return true
	case hasIntegrityPrefix(t):
		// npm and HTML integrity strings (sha512-…): hashes of public
		// packages, left alone.
		return true
	case isObjectID(t):
		return true
	case isSSHPublicKey(t):
		return true
	case isWrappedBlob(s, start, end), publicLookalike(s, start, end), isBase64JSON(t):
		return true
	}
	return isBase64Text(t)
}

// insideURL reports whether the word holding s[start] has a scheme:// before it.
func insideURL(s string, start int) bool {
	i := start
	for i > 0 && !isWordBreak(s[i-1]) {
		i--
	}
	return strings.Contains(s[i:start], "://")
}

func isWordBreak(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', '"', '\'', '`', '(', ')', '<', '>', '[', ']', '{', '}':
		return true
	}
	return false
}

// isPathLike reports a token with a plain lower-case directory or file name
// among its slash-separated parts: cache/pre-commit/repoXk9m…/setup, where
// a cache or temporary directory gives a path a random part. Base64 split at
// its slashes almost never leaves such a part.
func isPathLike(t string) bool {
	if strings.IndexByte(t, '/') < 0 {
		return false
	}
	for part := range strings.SplitSeq(t, "/") {
		if len(part) >= 3 && strings.Trim(part, "abcdefghijklmnopqrstuvwxyz_-") == "" {
			return true
		}
	}
	return false
}

// hasDigestLabel reports text ending in a digest label: h1:, sha256:, md5:.
func hasDigestLabel(before string) bool {
	if !strings.HasSuffix(before, ":") {
		return false
	}
	i := len(before) - 1
	for i > 0 && isAlnum(before[i-1]) {
		i--
	}
	switch strings.ToLower(before[i : len(before)-1]) {
	case "h1", "md5", "sha1", "sha256", "sha384", "sha512":
		return true
	}
	return false
}

func hasIntegrityPrefix(t string) bool {
	for _, p := range [...]string{"sha1-", "sha256-", "sha384-", "sha512-"} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}

// isObjectID reports a word, _ or -, then a random part: the IDs APIs hand
// out and users paste back (OpenRouter's gen-I0EN1P6M…, Clerk's
// user_2bjiyGLM…, Anthropic's msg_01…, Stripe's cus_…), and names with a
// hash in them (protobuf's fileDescriptor_a18a9e6d5cf09c5a). A lower-case
// word is enough for the first; any word will do when the rest is hex.
// Secrets with a prefix are in the shape table; a prefix that says key or
// secret still counts as one.
func isObjectID(t string) bool {
	i := 0
	for i < len(t) && (isLower(t[i]) || isUpper(t[i])) {
		i++
	}
	if i < 2 || i == len(t) || (t[i] != '_' && t[i] != '-') {
		return false
	}
	word, rest := t[:i], t[i+1:]
	switch strings.ToLower(word) {
	case "key", "secret", "token", "pat", "sk", "rk", "api", "apikey", "auth", "pass", "priv":
		return false
	}
	return isHex(rest) || i <= 12 && strings.ToLower(word) == word
}

// isSSHPublicKey reports the base64 of an SSH public key, which starts with
// the length-prefixed key type (ssh-rsa, ssh-ed25519, ecdsa-sha2-…).
func isSSHPublicKey(t string) bool {
	for _, p := range [...]string{"AAAAB3NzaC1", "AAAAC3NzaC1", "AAAAE2VjZHNh"} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}

// isWrappedBlob reports a token that fills its line in a run of such lines:
// a certificate, a public key or a file in base64, wrapped at 64 or 76
// columns. Private keys are already gone by the time this runs.
func isWrappedBlob(s string, start, end int) bool {
	if end-start < 60 {
		return false
	}
	lineStart := strings.LastIndexByte(s[:start], '\n') + 1
	lineEnd := len(s)
	if n := strings.IndexByte(s[end:], '\n'); n >= 0 {
		lineEnd = end + n
	}
	if strings.TrimSpace(s[lineStart:lineEnd]) != s[start:end] {
		return false
	}
	next := ""
	if lineEnd < len(s) {
		next = s[lineEnd+1:]
		if n := strings.IndexByte(next, '\n'); n >= 0 {
			next = next[:n]
		}
	}
	prev := ""
	if lineStart > 0 {
		prev = s[strings.LastIndexByte(s[:lineStart-1], '\n')+1 : lineStart-1]
	}
	return isBase64Line(next) || isBase64Line(prev)
}

func isBase64Line(l string) bool {
	l = strings.TrimSpace(l)
	if rest := labelRE.ReplaceAllString(l, ""); rest != l {
		// A line of the blob that was redacted: a second pass reads
		// the block as the first did.
		return strings.Trim(rest, "=+/_-"+base62) == ""
	}
	if len(l) < 4 {
		return false
	}
	for i := 0; i < len(l); i++ {
		if !isTokenByte(l[i]) && l[i] != '=' {
			return false
		}
	}
	return true
}

// inSpans reports whether p falls in one of spans.
func inSpans(spans [][2]int, p int) bool {
	for _, sp := range spans {
		if sp[0] <= p && p < sp[1] {
			return true
		}
	}
	return false
}

// labelRE matches a label Text wrote.
var labelRE = lazyre.New(`\[redacted:[a-z0-9-]+\]`)

// isBase64Text reports base64 that decodes to ordinary text with words in
// it, which a person pasted to show, not to hide; text that itself holds a
// secret is still a secret.
func isBase64Text(t string) bool {
	for _, enc := range [...]*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		b, err := enc.DecodeString(t)
		if err != nil {
			continue
		}
		text := string(b)
		if !utf8.ValidString(text) || !printable(text) || !strings.ContainsAny(text, " \n") {
			return false
		}
		_, n := Text(text)
		return n == 0
	}
	return false
}
