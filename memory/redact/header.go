package redact

import (
	"encoding/base64"
	"strings"
	"unicode/utf8"
)

// bearer and basic match the credential after "Bearer" or "Basic", as
// written in an Authorization header, a curl -H flag or a requests call;
// the word stays so the text still says how the request authenticated.
var (
	bearer = anchor(`(?:Bearer|bearer|BEARER)[ \t]+([A-Za-z0-9._~+/-]{16,}=*)`)
	basic  = anchor(`(?:Basic|basic|BASIC)[ \t]+([A-Za-z0-9+/]{8,}={0,2})`)
)

// isBearerToken rejects prose ("bearer authentication-middleware") and
// stand-ins: a token mixes letters with digits.
func isBearerToken(v string) bool {
	upper, lower, digit := classes(v)
	return (upper || lower) && digit && !isPlaceholder(v)
}

// isBasicCredentials accepts base64 of user:password, which "Basic" followed
// by an ordinary word never decodes to.
func isBasicCredentials(v string) bool {
	b, err := base64.StdEncoding.DecodeString(v)
	if err != nil {
		return false
	}
	return utf8.Valid(b) && strings.IndexByte(string(b), ':') > 0 && printable(string(b))
}
