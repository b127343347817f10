package redact

import "strings"

// assignments finds values given to keys named like secrets: api_key=…,
// apiKey: "…", export OPENAI_API_KEY=…, "password": "…", password: … in
// YAML, Password: "…" in a Go literal, --token … on a command line. The key
// stays, so "DB_PASSWORD=[redacted:assignment]" still finds DB_PASSWORD.
//
// Code passes variables more often than literals, so a bare value under a
// lower-case key must look like a literal (a digit or a symbol) to go:
// api_key=posthog_project_api_key and token=self._issue_auth_token(user_id)
// are references, seen in the corpus, and stay. Upper-case keys are
// environment variables, whose values are always literals.
func assignments(s string) []edit {
	if !strings.ContainsAny(s, "=:") && !strings.Contains(s, "--") {
		return nil
	}
	var edits []edit
	for i := 0; i < len(s); {
		if !isKeyByte(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && isKeyByte(s[j]) {
			j++
		}
		key := s[i:j]
		if strings.HasSuffix(s[:i], labelPrefix) {
			// A label's kind (aws-secret-key) is no key.
			i = j
			continue
		}
		i = j
		// Most words are not keys: nothing assigns to them and they are
		// not a --flag. Only a key is read as words.
		if !isOperatorAfter(s, j) && !strings.HasPrefix(key, "--") {
			continue
		}
		// In a URL's query string a secret may go by a short name (sig,
		// key, auth) that elsewhere names anything; & ends its value.
		query := i > len(key) && (s[i-len(key)-1] == '?' || s[i-len(key)-1] == '&')
		kind := secretKeyKind(key)
		if kind == "" && isBareQualified(key) && quotedValueFollows(s, j) {
			// pass: '…' in a mailer's auth object; Python's pass and the
			// shell's PWD are never given a quoted literal.
			kind = "assignment"
		}
		if kind == "" && query {
			kind = queryKeyKind(key)
		}
		if kind == "" {
			kind = hexKeyKind(s, key, j)
		}
		if kind == "" {
			continue
		}
		start, end, ok := assignedValue(s, j, valueContext{flag: strings.HasPrefix(key, "--"), env: isEnvName(key), query: query})
		if !ok {
			continue
		}
		edits = append(edits, edit{start, end, kind})
		i = end
	}
	return edits
}

func isKeyByte(c byte) bool { return isAlnum(c) || c == '_' || c == '-' || c == '.' }

// secretKeyKind returns the kind of value a key holds, or "" when its name
// says nothing of secrets (see isSecretName): OPENAI_API_KEY, apiKey,
// x-api-key, DB_PW and SECRET_KEY_BASE do; max_tokens, tokenizer and
// primary_key do not.
func secretKeyKind(key string) string {
	key = strings.TrimLeft(key, "-_.")
	if key == "" || !isSecretName(key) {
		return ""
	}
	return keyKind(key)
}

// isBareQualified reports a name that is a secret's only with a word
// before it (pass, pwd, auth) or npm's _auth.
func isBareQualified(key string) bool {
	key = strings.TrimLeft(key, "_")
	return len(key) <= 4 && (strings.EqualFold(key, "pass") || strings.EqualFold(key, "pwd") || strings.EqualFold(key, "pw") || strings.EqualFold(key, "auth"))
}

// isOperatorAfter reports an = or : after a key ending at p, past a
// closing quote or bracket and blanks.
func isOperatorAfter(s string, p int) bool {
	if p < len(s) && isQuote(s[p]) {
		p++
	}
	if p < len(s) && s[p] == ']' {
		p++
	}
	p = skipBlanks(s, p)
	return p < len(s) && (s[p] == '=' || s[p] == ':')
}

// quotedValueFollows reports key: "…" or key = '…' after a key ending at p.
func quotedValueFollows(s string, p int) bool {
	if p < len(s) && isQuote(s[p]) {
		p++
	}
	p = skipBlanks(s, p)
	if p >= len(s) || s[p] != ':' && s[p] != '=' {
		return false
	}
	p = skipBlanks(s, p+1)
	return p < len(s) && isQuote(s[p]) || strings.HasSuffix(s[:p], "_auth=")
}

// queryKeyKind returns the kind of a short query-string name that holds a
// secret: an Azure SAS or S3 presigned URL's signature, a Maps key.
func queryKeyKind(key string) string {
	for _, k := range [...]string{"sig", "signature", "x-amz-signature", "x-goog-signature", "x-amz-credential", "x-goog-credential"} {
		if strings.EqualFold(key, k) {
			return "url-signature"
		}
	}
	for _, k := range [...]string{"key", "auth", "pass", "pwd"} {
		if strings.EqualFold(key, k) {
			return "assignment"
		}
	}
	return ""
}

// hexKeyKind returns "private-key" when any name ending in key (DEPLOYER_KEY,
// walletKey, PK) is given 0x and 64 hex digits: an Ethereum-style private
// key. A hash under such a name is written without 0x (a cache key, a
// lockfile's sha256), and a transaction hash is not assigned to a key.
func hexKeyKind(s, key string, p int) string {
	if suffixFold(key, "key") == 0 && !strings.EqualFold(key, "pk") {
		return ""
	}
	p = skipBlanks(s, p)
	for p < len(s) && (isQuote(s[p]) || s[p] == ']') {
		p++
	}
	p = skipBlanks(s, p)
	if p >= len(s) || (s[p] != '=' && s[p] != ':') {
		return ""
	}
	p++
	if p < len(s) && s[p] == '=' {
		return ""
	}
	p = skipBlanks(s, p)
	if p < len(s) && isQuote(s[p]) {
		p++
	}
	if isPrivateKeyHex(s[p:]) || isSignerName(key) && isBareKeyHex(s[p:]) {
		return "private-key"
	}
	return ""
}

// isPrivateKeyHex reports whether s starts with 0x and exactly 64 hex digits.
func isPrivateKeyHex(s string) bool {
	if !strings.HasPrefix(s, "0x") && !strings.HasPrefix(s, "0X") || len(s) < 66 || !isHex(s[2:66]) {
		return false
	}
	return len(s) == 66 || !isTokenByte(s[66])
}

// isSignerName reports a key that names who signs with it (signer_key,
// DEPLOYER_KEY, ownerKey): its 64 hex digits are a private key even
// without 0x, where a cache key's are a hash.
func isSignerName(key string) bool {
	var buf [32]byte
	last, start := lastWord(key, key, buf[:0])
	if string(last) != "key" || start == 0 {
		return false
	}
	var buf2 [32]byte
	before, _ := lastWord(key, strings.TrimRight(key[:start], "_-."), buf2[:0])
	switch string(before) {
	case "signer", "deployer", "owner", "operator", "validator", "wallet", "eth", "relayer", "minter":
		return true
	}
	return false
}

// isBareKeyHex reports whether s starts with exactly 64 hex digits.
func isBareKeyHex(s string) bool {
	return len(s) >= 64 && isHex(s[:64]) && (len(s) == 64 || !isTokenByte(s[64]))
}

// keyKind names AWS secret keys after their provider; they have no shape of
// their own, only a name (aws_secret_access_key).
func keyKind(key string) string {
	lower := strings.ToLower(key)
	if strings.Contains(lower, "aws") && strings.Contains(lower, "secret") {
		return "aws-secret-key"
	}
	return "assignment"
}

// suffixFold returns how many bytes of key end in suffix, ignoring case and
// the separators _ - . inside key; 0 when it does not.
func suffixFold(key, suffix string) int {
	i, j := len(key)-1, len(suffix)-1
	for ; i >= 0 && j >= 0; i-- {
		c := key[i]
		if c == '_' || c == '-' || c == '.' {
			continue
		}
		if c|0x20 != suffix[j] {
			return 0
		}
		j--
	}
	if j >= 0 {
		return 0
	}
	return len(key) - 1 - i
}

// isEnvName reports an environment-variable style name: letters, all upper.
func isEnvName(key string) bool {
	upper, lower, _ := classes(key)
	return upper && !lower
}

// valueContext says where a key stands: a --flag, an environment name, a
// URL's query string.
type valueContext struct{ flag, env, query bool }

// assignedValue finds the value assigned after a key that ends at p: the key
// may be closed by a quote or an env["KEY"] bracket, the operator is = := =>
// or :, and a --flag may take its value after a space. It returns the value's
// span, without its quotes, when the value reads as a secret.
func assignedValue(s string, p int, vc valueContext) (start, end int, ok bool) {
	flag, env := vc.flag, vc.env
	if p < len(s) && isQuote(s[p]) {
		p++
	}
	if p < len(s) && s[p] == ']' {
		p++
	}
	afterKey := p
	p = skipBlanks(s, p)
	colon := false
	switch rest := s[p:]; {
	case strings.HasPrefix(rest, ":="), strings.HasPrefix(rest, "=>"):
		p += 2
	case strings.HasPrefix(rest, "=="), strings.HasPrefix(rest, "::"):
		return 0, 0, false
	case strings.HasPrefix(rest, "="):
		p++
	case strings.HasPrefix(rest, ":"):
		p++
		colon = true
	case flag && p > afterKey:
	default:
		return 0, 0, false
	}
	p = skipBlanks(s, p)
	if p < len(s) && isQuote(s[p]) {
		line := s[p+1:]
		if nl := strings.IndexByte(line, '\n'); nl >= 0 {
			line = line[:nl]
		}
		n := strings.IndexByte(line, s[p])
		if n < 0 || !isQuotedSecret(line[:n], env) {
			return 0, 0, false
		}
		return p + 1, p + 1 + n, true
	}
	end = p
	for end < len(s) && !endsValue(s[end]) && !(s[end] == '&' && vc.query) {
		end++
	}
	for end > p && s[end-1] == '.' {
		end--
	}
	v := s[p:end]
	// A Python or TypeScript annotation: `api_key: str = "…"`.
	if colon && isIdentifier(v) {
		if q := skipBlanks(s, end); q < len(s) && s[q] == '=' && !strings.HasPrefix(s[q:], "==") {
			return assignedValue(s, end, valueContext{env: env})
		}
	}
	if !isBareSecret(v, env) {
		return 0, 0, false
	}
	return p, end, true
}

func isQuote(c byte) bool { return c == '"' || c == '\'' || c == '`' }

func skipBlanks(s string, p int) int {
	for p < len(s) && (s[p] == ' ' || s[p] == '\t') {
		p++
	}
	return p
}

// endsValue reports whether c ends an unquoted value.
func endsValue(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', '"', '\'', '`', ';', ',', ')', '}', ']', '>', '<', '|':
		return true
	}
	return false
}

// isQuotedSecret accepts a quoted literal unless it is short, a stand-in, a
// number, a path, a single lower-case word (the dummy keys local servers
// take, api_key="ollama"), or prose: a value with a space is a UI label or
// a message ("Mot de passe", "Enter your token"), not a credential.
//
// A passphrase of a few words is still a secret when its key is an
// environment name (DB_PASSWORD="correct horse battery staple") or it holds
// a digit or a symbol ("Tr0ub4dor & 3"): UI labels have neither.
func isQuotedSecret(v string, env bool) bool {
	if len(v) < 6 || isPlaceholder(v) || isNumber(v) || isPath(v) || isLowerWord(v) || isPublishable(v) {
		return false
	}
	if !strings.ContainsAny(v, " \t") {
		return true
	}
	// A wallet's mnemonic runs to 24 words under its environment name.
	maxWords, maxLen := 6, 80
	if env {
		maxWords, maxLen = 24, 240
	}
	if words := strings.Fields(v); len(words) > maxWords || len(v) > maxLen || strings.ContainsAny(v[len(v)-1:], ":?…") {
		return false
	}
	_, _, digit := classes(v)
	return env || digit || strings.ContainsAny(v, "&@#%^*+=~|\\/$!;")
}

// isBareSecret accepts an unquoted value that reads as a literal secret.
func isBareSecret(v string, env bool) bool {
	if len(v) < 6 || isPlaceholder(v) || isNumber(v) || isPath(v) || isQualifiedName(v) || isPublishable(v) {
		return false
	}
	// Code: calls, indexing, YAML tags, anchors and aliases.
	if strings.ContainsAny(v, "([") || strings.IndexByte("!&*@", v[0]) >= 0 {
		return false
	}
	if env {
		return !isPhrase(v)
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; !isLower(c) && !isUpper(c) && c != '_' && c != '.' && c != '-' {
			return true
		}
	}
	return false
}

// isNumber reports digits and dots, or a hex constant: counts, ports,
// versions (token==0.7.0 is a requirement pin, max_token=4096 a limit) and
// ioctl numbers (SIOCGETTOKEN = 0xc0506617).
func isNumber(v string) bool {
	// Up to 16 digits, a 64-bit word; 0x and 64 digits is a private key.
	if h := strings.TrimPrefix(strings.TrimPrefix(v, "-"), "0x"); len(h) < len(v)-1 && len(h) <= 16 && isHex(h) {
		return true
	}
	for i := 0; i < len(v); i++ {
		if !isDigit(v[i]) && v[i] != '.' {
			return false
		}
	}
	return true
}

// isPath reports file paths and URLs: PWD=/home/me, a docker secret's
// /run/secrets/db_password. URL credentials have their own rule.
func isPath(v string) bool {
	return strings.HasPrefix(v, "/") || strings.HasPrefix(v, "./") || strings.HasPrefix(v, "../") ||
		strings.HasPrefix(v, "~/") || strings.Contains(v, "://")
}

// isIdentifier reports a bare name: letters, digits, _ and dots.
func isIdentifier(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; !isAlnum(c) && c != '_' && c != '.' {
			return false
		}
	}
	return v != ""
}

// isQualifiedName reports a dotted reference to a value elsewhere:
// settings.OPENAI_API_KEY, C.NL80211_ATTR_SAE_PASSWORD, ed25519.PrivateKey.
func isQualifiedName(v string) bool {
	if !strings.Contains(v, ".") {
		return false
	}
	for part := range strings.SplitSeq(v, ".") {
		if part == "" || isDigit(part[0]) || !isIdentifier(part) {
			return false
		}
	}
	return true
}

// isLowerWord reports lower-case letters, - and _ only.
func isLowerWord(v string) bool { return strings.Trim(v, "abcdefghijklmnopqrstuvwxyz_-") == "" }

// isPhrase reports lower-case words joined by - or _, with no digit: the
// stand-ins of a .env.example in any language (API_KEY=votre-clé-va-ici,
// seen in the corpus). A real passphrase written that way is missed.
func isPhrase(v string) bool {
	upper, _, digit := classes(v)
	return !upper && !digit && strings.Count(v, "-")+strings.Count(v, "_") >= 2
}
