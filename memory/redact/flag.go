package redact

import "strings"

// A commandFlags says which flags of a command carry a credential. Many
// tools spell a password -p, which elsewhere is a port (docker run -p
// 8080:80) or a path, so a flag counts only after its own command and
// subcommand: docker login -p, sshpass -p, mysql -pPASS.
type commandFlags struct {
	names []string
	// sub, when set, is the subcommand the flags belong to (login).
	sub string
	// value flags take the secret as the next word, attached (-pX) or
	// after = (--password=X).
	value []string
	// attached flags take it only attached: mysql -p alone prompts, and
	// the word after it is the database.
	attached []string
	// userPass flags take user<sep>password; only the password goes.
	userPass []string
	sep      byte
	// lastWord: the command's last word is the password (htpasswd -b).
	lastWord string
}

var commandTable = []commandFlags{
	{names: []string{"curl"}, value: []string{"--oauth2-bearer"}, userPass: []string{"-u", "--user", "-U", "--proxy-user"}, sep: ':'},
	{names: []string{"http", "https", "xh"}, userPass: []string{"-a", "--auth"}, sep: ':'},
	{names: []string{"wget"}, value: []string{"--password", "--http-password", "--ftp-password", "--proxy-password"}},
	{names: []string{"docker", "podman", "buildah", "nerdctl", "helm", "oras", "crane", "regctl", "skopeo"}, sub: "login",
		value: []string{"-p", "--password"}},
	{names: []string{"skopeo"}, userPass: []string{"--creds", "--src-creds", "--dest-creds"}, sep: ':'},
	{names: []string{"sshpass"}, value: []string{"-p"}},
	{names: []string{"mysql", "mysqldump", "mysqladmin", "mysqlimport", "mysqlcheck", "mysqlsh", "mariadb", "mariadb-dump", "mariadb-admin"},
		attached: []string{"-p"}, value: []string{"--password"}},
	{names: []string{"redis-cli", "valkey-cli"}, value: []string{"-a", "--pass", "--askpass"}},
	{names: []string{"mongo", "mongosh", "mongodump", "mongorestore", "mongoexport", "mongoimport"}, value: []string{"-p", "--password"}},
	{names: []string{"ldapsearch", "ldapmodify", "ldapadd", "ldapdelete", "ldapwhoami", "ldappasswd"}, value: []string{"-w"}},
	{names: []string{"sqlcmd", "bcp", "osql"}, value: []string{"-P"}},
	{names: []string{"az", "cf", "oc"}, sub: "login", value: []string{"-p", "--password"}},
	{names: []string{"smbclient", "rpcclient"}, userPass: []string{"-U", "--user"}, sep: '%'},
	{names: []string{"lftp"}, userPass: []string{"-u"}, sep: ','},
	{names: []string{"ssh-keygen"}, value: []string{"-N", "-P"}},
	{names: []string{"zip", "unzip", "7z", "7za", "rar", "unrar"}, value: []string{"-P"}, attached: []string{"-p"}},
	{names: []string{"htpasswd"}, lastWord: "b"},
	{names: []string{"openssl"}, value: []string{"-k"}},
	{names: []string{"keytool", "jarsigner"}, value: []string{"-storepass", "-keypass", "-srcstorepass", "-deststorepass", "-srckeypass", "-destkeypass"}},
	{names: []string{"ipmitool"}, value: []string{"-P"}},
	{names: []string{"gpg", "gpg2"}, value: []string{"--passphrase"}},
	{names: []string{"svn"}, value: []string{"--password"}},
}

// commandsByName indexes commandTable by command name.
var commandsByName = func() map[string][]*commandFlags {
	m := map[string][]*commandFlags{}
	for i := range commandTable {
		for _, n := range commandTable[i].names {
			m[n] = append(m[n], &commandTable[i])
		}
	}
	return m
}()

// commandStarts marks the first bytes of the commands in commandTable, so
// most words cost no map lookup.
var commandStarts = func() (t [256]bool) {
	for _, cf := range commandTable {
		for _, n := range cf.names {
			t[n[0]] = true
		}
	}
	return t
}()

// A shellWord is a word of a command line: s[start:end] as written, and
// its value without the quotes around it.
type shellWord struct {
	start, end int
	// sep marks a word that ends a command: | ; & && || or a line end.
	sep bool
}

// commandCredentials finds passwords and tokens given to commands on a
// command line: curl -u user:PASS, docker login -p PASS, sshpass -p PASS,
// mysql -pPASS, openssl -passin pass:PASS. Quoted values keep their
// spaces and symbols ('my pass&word'). A value in $VAR, $(…) or <…> is a
// reference, not a secret, and stays.
func commandCredentials(s string) []edit {
	var edits []edit
	var words []shellWord
	for start := 0; start < len(s); {
		end := logicalLineEnd(s, start)
		// Every rule below needs a flag or a config command's set; most
		// lines of a chat have neither.
		if line := s[start:end]; strings.Contains(line, " -") || strings.Contains(line, " set ") {
			words = shellWords(words[:0], s, start, end)
			edits = append(edits, lineCredentials(s, words)...)
			edits = append(edits, quotedCommands(s, words, commandCredentials)...)
		}
		start = end + 1
	}
	return sortEdits(edits)
}

// quotedCommands runs find over each quoted part of words that holds a
// blank: a command line quoted whole in a message or a warning ("run
// 'mysql -pX …'", 1 line of unknown type "curl -u a:X …") is one shell
// word, and its own words are read as a line of their own.
func quotedCommands(s string, words []shellWord, find func(string) []edit) []edit {
	var edits []edit
	for _, w := range words {
		for i := w.start; i < w.end; i++ {
			if !isQuote(s[i]) {
				continue
			}
			j := strings.IndexByte(s[i+1:w.end], s[i])
			if j < 0 {
				break
			}
			inner := s[i+1 : i+1+j]
			if strings.ContainsAny(inner, " \t") {
				for _, e := range find(inner) {
					edits = append(edits, edit{e.start + i + 1, e.end + i + 1, e.kind})
				}
			}
			i += j + 1
		}
	}
	return edits
}

// logicalLineEnd is where the command line starting at start ends: the
// next line end that no backslash continues.
func logicalLineEnd(s string, start int) int {
	for i := start; ; {
		n := strings.IndexByte(s[i:], '\n')
		if n < 0 {
			return len(s)
		}
		i += n
		if i == 0 || s[i-1] != '\\' {
			return i
		}
		i++
	}
}

// lineCredentials finds the credentials in one command line's words.
func lineCredentials(s string, words []shellWord) []edit {
	var edits []edit
	for i, w := range words {
		if w.sep {
			continue
		}
		text := s[w.start:w.end]
		if v, ok := strings.CutPrefix(text, "pass:"); ok && i > 0 && strings.HasPrefix(s[words[i-1].start:words[i-1].end], "-pass") {
			// openssl's -passin pass:X, -passout pass:X, -pass pass:X.
			edits = appendValue(edits, s, w.start+len("pass:"), w.end, v)
			continue
		}
		if i+1 < len(words) && !words[i+1].sep && isConfigSet(s, words, i) {
			edits = appendWord(edits, s, words[i+1], 0)
			continue
		}
		name := text[strings.LastIndexByte(text, '/')+1:]
		if name == "" || !commandStarts[name[0]] || len(name) > len("mariadb-admin") {
			continue
		}
		for _, cf := range commandsByName[name] {
			edits = append(edits, cf.find(s, words[i+1:])...)
		}
	}
	return edits
}

// find returns the credentials cf's flags carry in the words after the
// command, up to the end of the command.
func (cf *commandFlags) find(s string, words []shellWord) []edit {
	var edits []edit
	inSub := cf.sub == ""
	var last shellWord
	lastFlagged := false
	for k := 0; k < len(words) && !words[k].sep; k++ {
		w := words[k]
		text := s[w.start:w.end]
		if !inSub {
			inSub = text == cf.sub
			continue
		}
		if cf.lastWord != "" && strings.HasPrefix(text, "-") && !strings.HasPrefix(text, "--") && strings.Contains(text, cf.lastWord) {
			lastFlagged = true
		}
		if !strings.HasPrefix(text, "-") {
			last = w
		}
		next := func() (shellWord, bool) {
			if k+1 < len(words) && !words[k+1].sep {
				return words[k+1], true
			}
			return shellWord{}, false
		}
		for _, f := range cf.value {
			switch {
			case text == f:
				if n, ok := next(); ok {
					edits = appendWord(edits, s, n, 0)
					k++
				}
			case strings.HasPrefix(text, f+"="):
				edits = appendWord(edits, s, w, len(f)+1)
			case len(f) == 2 && len(text) > 2 && strings.HasPrefix(text, f):
				edits = appendWord(edits, s, w, 2)
			}
		}
		for _, f := range cf.attached {
			if len(text) > len(f) && strings.HasPrefix(text, f) && !strings.HasPrefix(text, f+"-") {
				edits = appendWord(edits, s, w, len(f))
			}
		}
		for _, f := range cf.userPass {
			var n shellWord
			var skip int
			switch {
			case text == f:
				var ok bool
				if n, ok = next(); !ok {
					continue
				}
				k++
			case strings.HasPrefix(text, f+"="):
				n, skip = w, len(f)+1
			case len(f) == 2 && len(text) > 2 && strings.HasPrefix(text, f):
				n, skip = w, 2
			default:
				continue
			}
			start, end := unquote(s, n.start+skip, n.end)
			if c := strings.IndexByte(s[start:end], cf.sep); c >= 0 {
				edits = appendValue(edits, s, start+c+1, end, s[start+c+1:end])
			}
		}
	}
	if lastFlagged && last.end > 0 {
		edits = appendWord(edits, s, last, 0)
	}
	return edits
}

// isConfigSet reports a secret's name given to a config command, whose
// value is the next word: git config --global github.token X, npm config
// set //host/:_authToken X, aws configure set aws_secret_access_key X.
func isConfigSet(s string, words []shellWord, i int) bool {
	if i == 0 || words[i-1].sep {
		return false
	}
	switch s[words[i-1].start:words[i-1].end] {
	case "set", "--global", "--local", "--system", "--add", "config":
	default:
		return false
	}
	name := s[words[i].start:words[i].end]
	name = name[strings.LastIndexAny(name, ":/")+1:]
	return name != "" && isKeyName(name) && secretKeyKind(name) != ""
}

// isKeyName reports a name made of key bytes only.
func isKeyName(v string) bool {
	for i := 0; i < len(v); i++ {
		if !isKeyByte(v[i]) {
			return false
		}
	}
	return true
}

// appendWord adds the value of w after its first skip bytes (a flag glued
// to it), without its quotes.
func appendWord(edits []edit, s string, w shellWord, skip int) []edit {
	start, end := unquote(s, w.start+skip, w.end)
	return appendValue(edits, s, start, end, s[start:end])
}

// appendValue adds s[start:end] as a secret unless it is a reference or a
// stand-in.
func appendValue(edits []edit, s string, start, end int, v string) []edit {
	if len(v) < 4 || isPlaceholder(v) || strings.HasPrefix(v, "-") || isUpperWord(v) || strings.HasSuffix(s[:start], labelPrefix) {
		return edits
	}
	return append(edits, edit{start, end, "command-credentials"})
}

// isUpperWord reports a stand-in written in capitals: PASSWORD, MY_TOKEN.
func isUpperWord(v string) bool { return strings.Trim(v, "ABCDEFGHIJKLMNOPQRSTUVWXYZ_") == "" }

// unquote narrows s[start:end] to inside the quotes around it.
func unquote(s string, start, end int) (int, int) {
	if end-start >= 2 && isQuote(s[start]) && s[end-1] == s[start] {
		return start + 1, end - 1
	}
	return start, end
}

// shellWords appends to words the words of s[from:to] as a shell would at its
// simplest: blanks and escaped line ends part words, quotes join them, and
// | ; & ( ) and line ends end a command.
func shellWords(words []shellWord, s string, from, to int) []shellWord {
	s = s[:to]
	for i := from; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t':
			i++
		case c == '\\' && i+1 < len(s) && (s[i+1] == '\n' || s[i+1] == '\r'):
			i += 2
		case c == '\n' || c == '\r' || c == ';' || c == '|' || c == '&' || c == '(' || c == ')' || c == '`':
			words = append(words, shellWord{start: i, end: i + 1, sep: true})
			i++
		default:
			start := i
			for i < len(s) && !endsShellWord(s[i]) {
				if isQuote(s[i]) && s[i] != '`' {
					q := s[i]
					j := strings.IndexByte(s[i+1:], q)
					nl := strings.IndexByte(s[i+1:], '\n')
					if j < 0 || (nl >= 0 && nl < j) {
						i++
						continue
					}
					i += j + 2
					continue
				}
				i++
			}
			words = append(words, shellWord{start: start, end: i})
		}
	}
	return words
}

func endsShellWord(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', ';', '|', '&', '(', ')', '`':
		return true
	}
	return false
}

// sortEdits orders edits by start and drops any that overlap an earlier one.
func sortEdits(edits []edit) []edit {
	for i := 1; i < len(edits); i++ {
		for j := i; j > 0 && edits[j].start < edits[j-1].start; j-- {
			edits[j], edits[j-1] = edits[j-1], edits[j]
		}
	}
	out := edits[:0]
	for _, e := range edits {
		if len(out) > 0 && e.start < out[len(out)-1].end {
			continue
		}
		out = append(out, e)
	}
	return out
}
