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
