package redact

// privateKeyBlock is a whole PEM or PGP private key, BEGIN line to END line:
// base64 lines, Proc-Type style headers and blank lines between them. A block
// may sit on one line with literal \n escapes, as in a service account's
// JSON; a pasted block is often cut short, so the END line is optional.
// Lines are found by their content whatever surrounds it: trailing spaces,
// lines of only spaces, CRLF, an indentation or a "> " quote before each.
// A block whose lines were joined by spaces (a command line or a file
// name made of it, a key pasted flat) is taken up to its END line.
var privateKeyBlock = anchor(`-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----` +
	`(?:(?:[ \t>]+(?:[A-Za-z0-9+/=]+|[A-Za-z-]+: [A-Za-z0-9,-]+))+[ \t>]+-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----` +
	`|(?:[ \t]*(?:\r?\n|\\r\\n|\\n)[ \t>]*(?:[A-Za-z0-9+/=]+|[A-Za-z-]+: [A-Za-z0-9,-]+)?)*` +
	`(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----)?)`)

// hasKeyMaterial rejects a BEGIN line with no key after it: prose about
// the format, or a "..." placeholder. Public keys and certificates never
// match privateKeyBlock; they are public by design.
func hasKeyMaterial(block string) bool { return hasBase64Run(block, 16) }

// hasBase64Run reports whether s holds n base64 characters in a row.
func hasBase64Run(s string, n int) bool {
	run := 0
	for i := 0; i < len(s); i++ {
		if c := s[i]; isAlnum(c) || c == '+' || c == '/' {
			run++
			if run >= n {
				return true
			}
		} else {
			run = 0
		}
	}
	return false
}
