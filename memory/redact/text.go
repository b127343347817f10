package redact

import "strings"

// Text returns s with every secret it recognises replaced by
// "[redacted:<kind>]", and the number of replacements. Rules run from the
// most specific to the most general: secrets with a shape of their own
// (private key blocks, provider tokens, JWTs, Authorization headers), then
// URL credentials, connection strings and SQL, credentials in command-line
// flags, on standard input and in calls, directives (netrc, Redis),
// key=value assignments, secrets named in prose in ten languages, and last
// high-entropy tokens, so a value is labelled by the strongest evidence
// and never counted twice. Each rule looks for a literal before it reads
// further: it runs on every byte deja indexes.
//
// Credentials that providers publish as examples (AKIAIOSFODNN7EXAMPLE)
// are kept: see documented.
func Text(s string) (string, int) {
	n := 0
	redact := func(find func(string) []edit) {
		if edits := keepDocumented(s, find(s)); len(edits) > 0 {
			s = apply(s, edits)
			n += len(edits)
		}
	}
	redact(shapeTokens)
	// Credentials of URLs that share their bytes (":/:x@:/:y@") are found
	// one a pass: look again until a pass finds none.
	for last := -1; n > last; {
		last = n
		redact(urlCredentials)
	}
	redact(connectionCredentials)
	redact(commandCredentials)
	redact(stdinCredentials)
	redact(callCredentials)
	redact(directiveCredentials)
	redact(assignments)
	redact(proseCredentials)
	redact(multilingualCredentials)
	// A random token's redaction can take away what explained its
	// neighbour (the URL it sat in, the blob lines around it), so tokens
	// are looked at again until a pass finds none: a second Text then
	// changes nothing. The rules before see the text as they leave it.
	for last := -1; n > last; {
		last = n
		redact(highEntropy)
	}
	return s, n
}

// An edit says s[start:end] is a secret of the given kind.
type edit struct {
	start, end int
	kind       string
}

// label is what a secret of kind becomes; the "redacted:" prefix lets later
// rules recognise values that are already gone.
func label(kind string) string { return labelPrefix + kind + "]" }

const labelPrefix = "[redacted:"

// apply replaces each edit's span with its label; edits are in order and do
// not overlap.
func apply(s string, edits []edit) string {
	var b strings.Builder
	b.Grow(len(s))
	last := 0
	for _, e := range edits {
		b.WriteString(s[last:e.start])
		b.WriteString(label(e.kind))
		last = e.end
	}
	b.WriteString(s[last:])
	return b.String()
}
