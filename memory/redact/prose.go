package redact

import (
	"slices"
	"strings"
)

// proseQualifiers and proseSecrets make the two-word names people give secrets in prose and in
// config keys written with a space ("API key: …", "the private key is …");
// the first word qualifies the second.
var proseQualifiers = map[string]bool{
	"api": true, "secret": true, "private": true, "access": true, "auth": true, "bot": true,
	"app": true, "master": true, "root": true, "admin": true, "db": true, "database": true,
	"wallet": true, "signing": true, "encryption": true, "account": true, "client": true,
	"deploy": true, "personal": true, "refresh": true, "session": true, "sudo": true, "wifi": true,
}

var proseSecrets = map[string]bool{
	"key": true, "token": true, "password": true, "secret": true, "passphrase": true, "pass": true,
}

// proseSecretWords are names that hold a secret on their own.
var proseSecretWords = map[string]bool{
	"password": true, "passphrase": true, "passwd": true, "token": true,
}

// proseNeedles find the secret words in any of the three ways they are
// written; the rule looks only where one is, since it runs over every
// message and few hold one.
var proseNeedles = []string{
	"key", "Key", "KEY", "token", "Token", "TOKEN",
	"pass", "Pass", "PASS", "secret", "Secret", "SECRET",
}

// proseCredentials finds secrets that a sentence names: "my API key: …",
// "the password is …", "private key = 0x…". The name stays; the value must
// read as a literal (a digit or symbol among letters, or 0x and hex), so
// "the password is wrong" and "the token is valid" stay as written.
func proseCredentials(s string) []edit {
	var starts []int
	for _, n := range proseNeedles {
		for i := 0; ; {
			k := strings.Index(s[i:], n)
			if k < 0 {
				break
			}
			p := i + k
			if p == 0 || !isAlnum(s[p-1]) {
				starts = append(starts, p)
			}
			i = p + len(n)
		}
	}
	if len(starts) == 0 {
		return nil
	}
	slices.Sort(starts)
	var edits []edit
	done := 0
	for _, p := range starts {
		if p < done {
			continue
		}
		j := p
		for j < len(s) && isAlnum(s[j]) {
			j++
		}
		word := lowerWord(s[p:j])
		named := proseSecrets[word] && proseQualifiers[wordBefore(s, p)]
		if !named && !proseSecretWords[word] {
			continue
		}
		start, end, ok := proseValue(s, j, named)
		if !ok {
			continue
		}
		edits = append(edits, edit{start, end, "assignment"})
		done = end
	}
	return edits
}

// wordBefore is the word a space or two before s[p], in lower case when it
// may qualify a secret's name, else "".
func wordBefore(s string, p int) string {
	i := p
	for i > 0 && s[i-1] == ' ' {
		i--
	}
	if i == p || p-i > 2 {
		return ""
	}
	j := i
	for j > 0 && isAlnum(s[j-1]) {
		j--
	}
	return lowerWord(s[j:i])
}

// proseValue finds the value after a secret's name ending at p: after "is"
// or "was", or, for a two-word name, after : or =. A single word with : or
// = is an assignment, found by that rule.
func proseValue(s string, p int, named bool) (start, end int, ok bool) {
	q := skipBlanks(s, p)
	switch rest := s[q:]; {
	case named && (strings.HasPrefix(rest, ":") || strings.HasPrefix(rest, "=")) && !strings.HasPrefix(rest, "==") && !strings.HasPrefix(rest, "::"):
		q++
	case hasWord(rest, "is"), hasWord(rest, "was"):
		if q == p {
			return 0, 0, false
		}
		q += strings.IndexByte(rest, 's') + 1
		if q < len(s) && s[q] == ':' {
			q++
		}
	default:
		return 0, 0, false
	}
	q = skipBlanks(s, q)
	if q < len(s) && isQuote(s[q]) {
		end := strings.IndexByte(s[q+1:], s[q])
		if nl := strings.IndexByte(s[q+1:], '\n'); end < 0 || (nl >= 0 && nl < end) {
			return 0, 0, false
		}
		v := s[q+1 : q+1+end]
		return q + 1, q + 1 + end, isQuotedSecret(v, false) || isProseSecret(v)
	}
	end = q
	for end < len(s) && !endsValue(s[end]) {
		end++
	}
	// A sentence's full stop or comma is not part of the value.
	for end > q && strings.IndexByte(".,:!?", s[end-1]) >= 0 {
		end--
	}
	return q, end, isProseSecret(s[q:end])
}

// hasWord reports whether s starts with w as a whole word.
func hasWord(s, w string) bool {
	return strings.HasPrefix(s, w) && (len(s) == len(w) || !isWordByte(s[len(w)]))
}

// isProseSecret accepts a value that only a secret would be: at least six
// characters with letters and digits or symbols, or an 0x private key; a
// word, a number, a path, a call or a stand-in stays.
func isProseSecret(v string) bool {
	if isPrivateKeyHex(v) {
		return true
	}
	if len(v) < 6 || isPlaceholder(v) || isNumber(v) || isPath(v) || isQualifiedName(v) || strings.ContainsAny(v, "([") {
		return false
	}
	upper, lower, digit := classes(v)
	if !upper && !lower {
		return false
	}
	return digit || strings.ContainsAny(v, "!@#$%^&*+=~")
}

// lowerWord returns w in lower case when it is short enough to be one of
// the names above, else "": most words are longer or shorter, and are
// never copied.
func lowerWord(w string) string {
	if len(w) < 2 || len(w) > len("encryption") {
		return ""
	}
	var buf [16]byte
	for i := 0; i < len(w); i++ {
		buf[i] = w[i] | 0x20
	}
	if b := buf[:len(w)]; !proseQualifiers[string(b)] && !proseSecrets[string(b)] && !proseSecretWords[string(b)] {
		return ""
	}
	return string(buf[:len(w)])
}
