package redact

import (
	"strings"

	"github.com/deja-dev/deja/internal/lazyre"
)

// connectionCredentials finds the passwords in the connection strings the
// major drivers document that are not URLs (urlCredentials has those): Go's
// MySQL DSN user:pw@tcp(host)/db, ODBC's PWD=, .pgpass lines
// host:port:db:user:pw, Oracle's user/pw@db, and SQL that sets a password
// (WITH PASSWORD '…', IDENTIFIED BY …). Each is found by a literal first.
func connectionCredentials(s string) []edit {
	var edits []edit
	edits = append(edits, goDSNs(s)...)
	edits = append(edits, odbcPasswords(s)...)
	edits = append(edits, pgpassLines(s)...)
	edits = append(edits, oracleLogins(s)...)
	edits = append(edits, sqlPasswords(s)...)
	return sortEdits(edits)
}

// goDSNs finds the password of go-sql-driver/mysql's DSN,
// user:password@protocol(address)/dbname.
func goDSNs(s string) []edit {
	var edits []edit
	for _, proto := range [...]string{"@tcp(", "@unix(", "@tcp6("} {
		for i := 0; ; {
			k := strings.Index(s[i:], proto)
			if k < 0 {
				break
			}
			at := i + k
			i = at + len(proto)
			start := at
			for start > 0 && !isDSNBreak(s[start-1]) {
				start--
			}
			colon := strings.IndexByte(s[start:at], ':')
			if colon < 0 {
				continue
			}
			if v := s[start+colon+1 : at]; v != "" && !isPlaceholder(v) && !isDefaultPassword(v) {
				edits = append(edits, edit{start + colon + 1, at, "connection-string"})
			}
		}
	}
	return edits
}

// isDSNBreak ends a DSN's user:password part, going back from its @.
func isDSNBreak(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', '"', '\'', '`', '=', '(', ',', '/':
		return true
	}
	return false
}

// odbcPasswords finds PWD=… in an ODBC connection string (Driver={…};
// UID=sa;PWD=…;), braced or not. PWD alone elsewhere is the shell's
// working directory, so the string must hold a ; and the value not be a
// path.
func odbcPasswords(s string) []edit {
	var edits []edit
	for _, key := range [...]string{"PWD=", "Pwd=", "pwd="} {
		for i := 0; ; {
			k := strings.Index(s[i:], key)
			if k < 0 {
				break
			}
			p := i + k
			i = p + len(key)
			if p > 0 && isKeyByte(s[p-1]) {
				continue
			}
			line := s[strings.LastIndexByte(s[:p], '\n')+1:]
			if nl := strings.IndexByte(line, '\n'); nl >= 0 {
				line = line[:nl]
			}
			if !strings.Contains(line, ";") {
				continue
			}
			start, end := i, i
			if end < len(s) && s[end] == '{' {
				if c := strings.IndexByte(s[end:], '}'); c > 0 {
					start, end = end+1, end+c
				}
			} else {
				for end < len(s) && s[end] != ';' && !endsValue(s[end]) {
					end++
				}
			}
			if v := s[start:end]; v != "" && !isPlaceholder(v) && !isPath(v) {
				edits = append(edits, edit{start, end, "connection-string"})
			}
		}
	}
	return edits
}

// pgpassLines finds the password of a .pgpass line,
// hostname:port:database:username:password, where port is digits or *.
func pgpassLines(s string) []edit {
	if strings.Count(s, ":") < 4 {
		return nil
	}
	var edits []edit
	for start := 0; start < len(s); {
		// Only lines with a colon are read: the next colon's line.
		c := strings.IndexByte(s[start:], ':')
		if c < 0 {
			break
		}
		start = strings.LastIndexByte(s[:start+c], '\n') + 1
		end := strings.IndexByte(s[start:], '\n')
		if end < 0 {
			end = len(s)
		} else {
			end += start
		}
		trimmed := strings.TrimRight(s[start:end], " \t\r")
		// The line may be quoted after words of prose: its last word.
		from := start + strings.LastIndexAny(trimmed, " \t") + 1
		line := s[from : start+len(trimmed)]
		// A line already redacted ("[redacted:kind]" holds a colon) is
		// not a fifth field's password: redaction stays idempotent.
		if len(line) >= 9 && strings.Count(line, ":") == 4 && !strings.ContainsAny(line, " \t\"'") && !strings.Contains(line, "[redacted") {
			f := strings.Split(line, ":")
			if f[0] != "" && f[2] != "" && f[3] != "" && len(f[4]) >= 4 && (f[1] == "*" || f[1] != "" && isNumber(f[1])) && !isPlaceholder(f[4]) {
				edits = append(edits, edit{from + len(line) - len(f[4]), from + len(line), "connection-string"})
			}
		}
		start = end + 1
	}
	return edits
}

// oracleLogins finds the password of the user/password@database an
// Oracle tool takes (sqlplus, expdp, CONNECT, a JDBC thin URL). It looks
// at each @ whose word holds a / and only then for the tool before it on
// the line, so a path with an @ (node_modules/lodash@4) is not a login.
func oracleLogins(s string) []edit {
	var edits []edit
	for i := 0; ; {
		k := strings.IndexByte(s[i:], '@')
		if k < 0 {
			return edits
		}
		at := i + k
		i = at + 1
		start := at
		for start > 0 && !isOracleBreak(s[start-1]) {
			start--
		}
		word := s[start:at]
		slash := strings.IndexByte(word, '/')
		if slash < 1 || slash == len(word)-1 || !isOracleUser(strings.Trim(word[:slash], `"`)) {
			continue
		}
		line := s[max(strings.LastIndexByte(s[:start], '\n')+1, start-80):start]
		if !hasOracleTool(line) {
			continue
		}
		ps, pe := start+slash+1, at
		if pe-ps >= 2 && s[ps] == '"' && s[pe-1] == '"' {
			ps, pe = ps+1, pe-1
		}
		if v := s[ps:pe]; !isPlaceholder(v) && !isDefaultPassword(v) {
			edits = append(edits, edit{ps, pe, "connection-string"})
		}
	}
}

func isOracleBreak(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\'' || c == '`' || c == ':' || c == '='
}

func isOracleUser(u string) bool {
	if u == "" || !isLower(u[0]) && !isUpper(u[0]) {
		return false
	}
	for i := 0; i < len(u); i++ {
		if c := u[i]; !isWordByte(c) && c != '$' && c != '#' {
			return false
		}
	}
	return true
}

// hasOracleTool reports an Oracle tool's name, as a word, in line.
func hasOracleTool(line string) bool {
	for _, tool := range [...]string{"sqlplus", "sqlldr", "expdp", "impdp", "rman", "dgmgrl", "CONNECT", "connect", "CONN", "conn", "thin", "exp", "imp"} {
		for j := 0; ; {
			k := strings.Index(line[j:], tool)
			if k < 0 {
				break
			}
			p := j + k
			j = p + len(tool)
			if (p == 0 || !isWordByte(line[p-1])) && (j == len(line) || !isWordByte(line[j])) {
				return true
			}
		}
	}
	return false
}

// sqlPassword and sqlIdentified are the SQL that sets a password:
// PostgreSQL's [WITH] [ENCRYPTED] PASSWORD '…', SQL Server's WITH
// PASSWORD = N'…', MySQL's SET PASSWORD FOR u = '…' and IDENTIFIED [WITH
// plugin] BY '…', Oracle's IDENTIFIED BY bare.
var (
	sqlPassword   = lazyre.New(`^(?i:password)(?:[ \t]+(?i:for)[ \t]+\S+)?[ \t]*(?:=[ \t]*)?(?:(?i:password)[ \t]*\([ \t]*)?N?'([^'\n]+)'`)
	sqlIdentified = lazyre.New(`^(?i:identified)[ \t]+(?:(?i:with)[ \t]+\S+[ \t]+)?(?i:by)[ \t]+(?:(?i:password)[ \t]+)?(?:'([^'\n]+)'|"([^"\n]+)"|([^\s;'"]+))`)
)

func sqlPasswords(s string) []edit {
	var edits []edit
	find := func(words [3]string, re *lazyre.Regexp) {
		for _, w := range words {
			for i := 0; ; {
				k := strings.Index(s[i:], w)
				if k < 0 {
					break
				}
				p := i + k
				i = p + len(w)
				if p > 0 && isWordByte(s[p-1]) {
					continue
				}
				m := re.FindStringSubmatchIndex(s[p:])
				if m == nil {
					continue
				}
				for g := 2; g+1 < len(m); g += 2 {
					if g == 6 && !isUserDDL(s, p) {
						// Oracle's bare IDENTIFIED BY pw, only in a
						// CREATE or ALTER USER: prose says "identified by".
						continue
					}
					if m[g] >= 0 {
						if v := s[p+m[g] : p+m[g+1]]; !isPlaceholder(v) && !strings.EqualFold(v, "values") {
							edits = append(edits, edit{p + m[g], p + m[g+1], "sql-password"})
						}
					}
				}
			}
		}
	}
	find([3]string{"PASSWORD", "password", "Password"}, sqlPassword)
	find([3]string{"IDENTIFIED", "identified", "Identified"}, sqlIdentified)
	return edits
}

// isUserDDL reports a line that creates or alters a user before p.
func isUserDDL(s string, p int) bool {
	line := strings.ToUpper(s[max(strings.LastIndexByte(s[:p], '\n')+1, p-120):p])
	return strings.Contains(line, "USER") && (strings.Contains(line, "CREATE") || strings.Contains(line, "ALTER"))
}
