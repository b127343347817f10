package redact

import "strings"

// directiveCredentials finds a password written as a word after its
// directive, with no = or : between: .netrc's "machine h login u password
// pw", Redis's "requirepass pw" and "masterauth pw", nmcli's "password pw"
// and "wifi-sec.psk pw". A netrc's or nmcli's "password" needs its
// companions (machine, login, nmcli) in the text; Redis's directives are
// their own context.
func directiveCredentials(s string) []edit {
	var edits []edit
	nmcli := strings.Contains(s, "nmcli ")
	netrc := nmcli || strings.Contains(s, " login ") || strings.Contains(s, "machine ")
	for _, d := range [...]string{"requirepass", "masterauth", "password", "wifi-sec.psk", "802-1x.password", "vpn.secrets.password"} {
		if d == "password" && !netrc || d != "password" && strings.Contains(d, ".") && !nmcli {
			continue
		}
		for i := 0; ; {
			k := strings.Index(s[i:], d)
			if k < 0 {
				break
			}
			p := i + k
			i = p + len(d)
			if p > 0 && (isWordByte(s[p-1]) || s[p-1] == '-' || s[p-1] == '.') || i >= len(s) || s[i] != ' ' && s[i] != '\t' {
				continue
			}
			if d == "password" && !hasNetrcContext(s[max(0, p-120):p]) {
				// "the password below" in a text that also says login.
				continue
			}
			start := skipBlanks(s, i)
			end := start
			for end < len(s) && !endsShellWord(s[end]) {
				end++
			}
			start, end = unquote(s, start, end)
			edits = appendValue(edits, s, start, end, s[start:end])
		}
	}
	return sortEdits(edits)
}

// hasNetrcContext reports a .netrc entry's or an nmcli command's words in
// the text just before a "password": machine, login, nmcli.
func hasNetrcContext(before string) bool {
	return strings.Contains(before, "machine ") || strings.Contains(before, "login ") || strings.Contains(before, "nmcli ")
}
