package redact

import "strings"

// urlCredentials finds the password in scheme://user:password@host. Only the
// password goes: postgres://alice:[redacted:url-credentials]@db:5432/app
// still finds "alice", "db" and "app". Documentation's user:password@,
// user:pass@ and the like are placeholders and stay.
func urlCredentials(s string) []edit {
	var edits []edit
	for i := 0; ; {
		// One slash is enough: a file record's path cleaning turns
		// postgres://u:p@db into postgres:/u:p@db.
		k := strings.Index(s[i:], ":/")
		if k < 0 {
			return edits
		}
		start := i + k + len(":/")
		if start < len(s) && s[start] == '/' {
			start++
		}
		end := start
		for end < len(s) && !endsAuthority(s[end]) {
			end++
		}
		i = end
		authority := s[start:end]
		at := strings.LastIndexByte(authority, '@')
		if at < 0 {
			continue
		}
		colon := strings.IndexByte(authority[:at], ':')
		if colon < 0 {
			continue
		}
		user, pass := authority[:colon], authority[colon+1:at]
		if len(pass) < 4 || pass == user || isPlaceholder(pass) || isDefaultPassword(pass) {
			continue
		}
		edits = append(edits, edit{start + colon + 1, start + at, "url-credentials"})
	}
}

// endsAuthority reports whether c ends a URL's user:password@host part.
func endsAuthority(c byte) bool {
	switch c {
	case '/', '?', '#', ' ', '\t', '\n', '\r', '"', '\'', '`', '<', '>', '(', ')', '[', ']', ',', ';':
		return true
	}
	return false
}

// isDefaultPassword reports the stand-ins and well-known defaults that
// documentation and docker-compose files put in connection strings
// (amqp://guest:guest@, postgres://postgres:postgres@ is caught as user==pass).
func isDefaultPassword(p string) bool {
	switch strings.ToLower(p) {
	case "pass", "passw0rd", "password1", "password123", "test", "guest", "admin", "root", "changeit":
		return true
	}
	return false
}

// URLCredentials masks what authenticates in every URL in s, for a message
// or a field that names a configured server: the password of
// user:password@, a userinfo without a password (NATS reads nats://TOKEN@
// as a token), and the value of a query parameter that names a secret
// (?token=, password=, …). Unlike the redaction of chat text it spares no
// placeholder: a configured credential is real whatever it looks like.
func URLCredentials(s string) string {
	var b strings.Builder
	for {
		k := strings.Index(s, "://")
		if k < 0 {
			b.WriteString(s)
			return b.String()
		}
		start := k + len("://")
		b.WriteString(s[:start])
		s = s[start:]
		end := 0
		for end < len(s) && !endsAuthority(s[end]) {
			end++
		}
		b.WriteString(maskUserinfo(s[:end]))
		s = s[end:]
		end = 0
		for end < len(s) && !endsURL(s[end]) {
			end++
		}
		b.WriteString(maskQuery(s[:end]))
		s = s[end:]
	}
}

// masked stands for a credential in a URL, as net/url's Redacted writes it.
const masked = "xxxxx"

// maskUserinfo masks the credential of a URL's user:password@host part.
func maskUserinfo(authority string) string {
	at := strings.LastIndexByte(authority, '@')
	if at < 0 {
		return authority
	}
	if colon := strings.IndexByte(authority[:at], ':'); colon >= 0 {
		return authority[:colon+1] + masked + authority[at:]
	}
	return masked + authority[at:]
}

// maskQuery masks the values of the parameters of a URL's path, query
// and fragment whose names say they hold a secret.
func maskQuery(rest string) string {
	q := strings.IndexByte(rest, '?')
	if q < 0 {
		return rest
	}
	params := strings.Split(rest[q+1:], "&")
	for i, p := range params {
		name, _, ok := strings.Cut(p, "=")
		if ok && secretParam(name) {
			params[i] = name + "=" + masked
		}
	}
	return rest[:q+1] + strings.Join(params, "&")
}

// secretParam reports whether a query parameter's name says it holds a
// credential.
func secretParam(name string) bool {
	name = strings.ToLower(name)
	for _, w := range []string{"token", "pass", "pwd", "secret", "key", "auth", "cred", "jwt", "seed", "sig"} {
		if strings.Contains(name, w) {
			return true
		}
	}
	return false
}

// endsURL reports whether c ends a URL in a message: its path, query and
// fragment run until one of these.
func endsURL(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', '"', '\'', '`', '<', '>', ',', ';', ')', ']':
		return true
	}
	return false
}
