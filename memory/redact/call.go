package redact

import "strings"

// passwordCalls are functions that take a password as a positional
// argument, by the name they are called with and the argument's index:
// smtplib's and ftplib's login(user, password), ldap's simple_bind_s(dn,
// password), Go's smtp.PlainAuth(identity, user, password, host). Index 0
// is a wallet's private key, taken only as 64 hex digits; -1 is connect,
// whose password's place depends on the driver.
var passwordCalls = map[string]int{
	"login": 1, "simple_bind_s": 1, "simple_bind": 1, "bind_s": 1,
	"HTTPBasicAuth": 1, "HTTPDigestAuth": 1, "HTTPProxyAuth": 1, "BasicAuth": 1,
	"SetBasicAuth": 1, "PasswordAuthentication": 1, "PlainAuth": 2,
	"connect": -1, "Wallet": 0, "privateKeyToAccount": 0, "from_key": 0,
}

// methodOnly are the names that are a password's call only as a method
// (smtp.login, ssh.connect): a function of that name is anyone's.
var methodOnly = map[string]bool{"login": true, "connect": true}

// callCredentials finds string literals passed where a function takes a
// password, and the second of a tuple given to auth (requests'
// auth=(user, password)). Variables (smtp.login(user, password)) are
// references and stay; only a quoted literal goes.
func callCredentials(s string) []edit {
	var edits []edit
	for i := 0; ; {
		k := strings.IndexAny(s[i:], "([")
		if k < 0 {
			break
		}
		open := i + k + 1
		i = open
		index, ok := calledWith(s, open-1)
		if !ok {
			continue
		}
		args := callArgs(s, open)
		if index < 0 {
			// connect(host, port, user, password) in paramiko;
			// connect(host, user, password, db) in the MySQL drivers.
			if len(args) < 3 {
				continue
			}
			index = 2
			if isNumber(strings.TrimSpace(s[args[1][0]:args[1][1]])) {
				index = 3
			}
		}
		if index >= len(args) {
			continue
		}
		start, end := args[index][0], args[index][1]
		if end-start < 2 || !isQuote(s[start]) {
			continue
		}
		// A literal converted in place: "…".toCharArray().
		if q := strings.IndexByte(s[start+1:end], s[start]); q >= 0 {
			end = start + q + 2
		}
		v := s[start+1 : end-1]
		if index == 0 && !isPrivateKeyHex(v) && !isBareKeyHex(v) {
			continue
		}
		if len(v) >= 4 && !isPlaceholder(v) && !isDefaultPassword(v) {
			edits = append(edits, edit{start + 1, end - 1, "call-credentials"})
		}
	}
	return edits
}

// calledWith returns the password's index for the call or tuple whose
// bracket is at p.
func calledWith(s string, p int) (int, bool) {
	name := p
	for name > 0 && isWordByte(s[name-1]) {
		name--
	}
	if name == p {
		// auth=(…) and session.auth = (…): a tuple, user first.
		q := p
		for q > 0 && s[q-1] == ' ' {
			q--
		}
		if q == 0 || s[q-1] != '=' {
			return 0, false
		}
		q--
		for q > 0 && s[q-1] == ' ' {
			q--
		}
		return 1, q >= 4 && strings.EqualFold(s[q-4:q], "auth") && (q == 4 || !isWordByte(s[q-5]))
	}
	if s[p] != '(' {
		return 0, false
	}
	index, ok := passwordCalls[s[name:p]]
	if ok && methodOnly[s[name:p]] && (name == 0 || s[name-1] != '.') {
		return 0, false
	}
	return index, ok
}

// callArgs returns the spans of a call's arguments from just after its
// opening bracket, trimmed of blanks, up to 8 of them on at most 400
// bytes; keyword arguments (password=…) are the assignments rule's.
func callArgs(s string, p int) [][2]int {
	var args [][2]int
	depth, start := 0, p
	for i := p; i < len(s) && i < p+400 && len(args) < 8; i++ {
		switch c := s[i]; c {
		case '"', '\'', '`':
			j := strings.IndexByte(s[i+1:], c)
			if j < 0 {
				return args
			}
			i += j + 1
		case '(', '[', '{':
			depth++
		case ')', ']', '}', ',':
			if depth > 0 && c != ',' {
				depth--
				continue
			}
			if depth > 0 {
				continue
			}
			a, b := start, i
			for a < b && (s[a] == ' ' || s[a] == '\t' || s[a] == '\n') {
				a++
			}
			for b > a && (s[b-1] == ' ' || s[b-1] == '\t' || s[b-1] == '\n') {
				b--
			}
			if strings.Contains(s[a:b], "=") && !isQuote(s[a]) {
				a = b
			}
			args = append(args, [2]int{a, b})
			if c != ',' {
				return args
			}
			start = i + 1
		}
	}
	return args
}
