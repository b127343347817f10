package redact

import (
	"strings"
	"unicode/utf8"
)

// secretNouns are the words for a password or a key in the languages deja's
// users write in; a value that follows one, after a verb or a colon, is a
// secret: "mon mot de passe est …", "Passwort: …", "密码是…", "パスワードは…".
// English is prose.go's. Each is written as it appears at a sentence's
// start and inside one.
var secretNouns = []string{
	"mot de passe", "Mot de passe", "MOT DE PASSE", "mdp", "MDP", "clé API", "Clé API", "clé d'API",
	"Passwort", "passwort", "PASSWORT", "Kennwort", "kennwort", "API-Schlüssel", "API-Key",
	"contraseña", "Contraseña", "CONTRASEÑA", "clave de acceso", "Clave de acceso", "clave de API", "clave API",
	"密码", "密碼", "口令", "密钥", "密鑰",
	"パスワード", "暗証番号", "APIキー", "秘密鍵",
	"пароль", "Пароль", "ПАРОЛЬ", "ключ API", "Ключ API", "API-ключ", "токен", "Токен",
	"senha", "Senha", "SENHA", "palavra-passe", "chave da API", "chave de API", "Chave da API",
	"parola d'ordine", "Parola d'ordine", "chiave API", "Chiave API",
	"비밀번호", "암호", "API 키", "API키",
	// Italian, and English in other languages' sentences, write password.
	"password", "Password", "PASSWORD",
}

// nounsByStart lists secretNouns by their first byte, so a text costs one
// table lookup at each byte that cannot start one.
var nounsByStart = func() (t [256][]string) {
	for _, n := range secretNouns {
		t[n[0]] = append(t[n[0]], n)
	}
	return t
}()

// linkWords sit between a secret's noun and its value: verbs, particles,
// and the short phrases of "le mot de passe de la base est …".
var linkWords = []string{
	"est", "c'est", "ist", "lautet", "es", "era", "é", "è", "e'", "sera", "是", "为", "為",
	"は", "が", "는", "은", "이", "—", "–", "-", "это", "от", "базы", "de", "la", "base", "do", "da",
	"del", "banco", "database", "der", "Datenbank", "du", "serveur", "admin", "для", "БД",
}

// multilingualCredentials finds values given by a secret's noun in French,
// German, Spanish, Chinese, Japanese, Russian, Portuguese, Italian and
// Korean. The value must read as a secret (isProseSecret): "mot de passe
// oublié" and "密码错误" hold none.
func multilingualCredentials(s string) []edit {
	if !hasNonASCII(s) && !containsAny(s, latinAnchors) {
		return nil
	}
	var edits []edit
	for i := 0; i < len(s); i++ {
		nouns := nounsByStart[s[i]]
		if nouns == nil {
			// No noun starts inside an ASCII word: skip the rest of it.
			for i+1 < len(s) && wordBytes[s[i]] && wordBytes[s[i+1]] {
				i++
			}
			continue
		}
		for _, n := range nouns {
			if !strings.HasPrefix(s[i:], n) {
				continue
			}
			end := i + len(n)
			if end < len(s) && (isWordByte(s[end]) || s[end] == '-') {
				break
			}
			if i > 0 && isWordByte(s[i-1]) && s[i] < utf8.RuneSelf {
				break
			}
			if q := skipBlanks(s, end); strings.EqualFold(n, "password") && q < len(s) && (s[q] == ':' || s[q] == '=') {
				// password: … is an assignment, with its YAML tags
				// and references; that rule decides.
				break
			}
			if start, stop, ok := nounValue(s, end); ok {
				edits = append(edits, edit{start, stop, "assignment"})
				i = stop - 1
			}
			break
		}
	}
	return edits
}

// nounValue finds the value after a noun ending at p: past blanks, colons
// (also the full-width one), = and a few link words, the next run of
// printable ASCII up to a blank, a quote or a sentence's punctuation.
func nounValue(s string, p int) (start, end int, ok bool) {
	from := p
	if c := labelColon(s, p); c > 0 {
		p = c
	}
	for steps := 0; steps < 6 && p < len(s); steps++ {
		if p = skipBlanks(s, p); p == len(s) {
			break
		}
		switch {
		case strings.HasPrefix(s[p:], "："):
			p += len("：")
			continue
		case s[p] == ':' || s[p] == '=':
			p++
			continue
		}
		linked := false
		for _, w := range linkWords {
			if strings.HasPrefix(s[p:], w) {
				after := p + len(w)
				if w[0] >= utf8.RuneSelf || after == len(s) || !isAlnum(s[after]) && s[after] != '\'' {
					p = after
					linked = true
					break
				}
			}
		}
		if !linked {
			break
		}
	}
	if p == from {
		// Glued to its noun, a word is part of a name (PASSWORD_FILE).
		return 0, 0, false
	}
	p = skipBlanks(s, p)
	quote := byte(0)
	if p < len(s) && isQuote(s[p]) {
		quote = s[p]
		p++
	}
	end = p
	for end < len(s) && s[end] < utf8.RuneSelf && s[end] > ' ' && s[end] != quote && (quote != 0 || !endsValue(s[end])) {
		end++
	}
	for end > p && strings.IndexByte(".,:!?;", s[end-1]) >= 0 {
		end--
	}
	return p, end, end > p && isProseSecret(s[p:end])
}

// labelColon returns where the value starts when the noun opens a label a
// few words long that a colon ends ("password for the vpn: …",
// "Senha do banco: …"), or 0.
func labelColon(s string, p int) int {
	for i := p; i < len(s) && i < p+40; i++ {
		switch c := s[i]; {
		case c == ':':
			return i + 1
		case strings.HasPrefix(s[i:], "："):
			return i + len("：")
		case c == ' ' || c == '\'' || c == '-' || isLower(c) || isUpper(c) || c >= utf8.RuneSelf:
		default:
			return 0
		}
	}
	return 0
}

// latinAnchors are pieces of every noun written in ASCII alone; a text
// with none of them and no byte beyond ASCII holds no noun.
var latinAnchors = []string{
	"assword", "ASSWORD", "asswort", "ASSWORT", "ennwort", "passe", "PASSE", "lave ",
	"mdp", "MDP", "enha", "ENHA", "have d", "hiave", "arola", "API-Key",
}

func containsAny(s string, pieces []string) bool {
	for _, p := range pieces {
		if strings.Contains(s, p) {
			return true
		}
	}
	return false
}

// hasNonASCII reports a byte beyond ASCII, eight bytes at a time.
func hasNonASCII(s string) bool {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		w := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		if w&0x8080808080808080 != 0 {
			return true
		}
	}
	for ; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return true
		}
	}
	return false
}
