package redact

import "strings"

// A key names a secret when its last word does, read as words whatever the
// case and separator style (DB_PW, dbPw, db-pw, db.pw): password, token,
// secret, credentials; key after a word that makes it one (api, hmac, aes,
// app, admin, client, tls…); seed after totp or wallet. Words that only
// describe how the value is written or where it is used (SECRET_KEY_BASE,
// client-key-data, ENCRYPTION_KEY_B64, DB_PASSWORD_PROD) are skipped first.
// So password_hash, token_type, PASSWORD_FILE, primary_key, public_key and
// site_key name no secret.

// secretWords name a secret on their own, as a key's last word. The ones
// that need a word before them (DB_PW, SMTP_PASS) are in qualifiedWords.
var secretWords = map[string]bool{
	"password": true, "passwd": true, "passphrase": true, "secret": true, "secrets": true,
	"token": true, "credentials": true, "credential": true, "creds": true, "mnemonic": true,
	"seedphrase": true, "psk": true, "dockerconfigjson": true, "privatekeyid": true,
	"apikey": true, "secretkey": true, "accesskey": true, "privatekey": true, "authkey": true,
	"masterkey": true, "signingkey": true, "encryptionkey": true, "accountkey": true,
}

// qualifiedWords are secrets only after another word: "pass" alone is
// Python's keyword, "pwd" the working directory, "auth" a feature flag.
var qualifiedWords = map[string]bool{"pass": true, "pwd": true, "pw": true, "auth": true}

// keyQualifiers make "key" a secret's name: HMAC_KEY, DD_APP_KEY, tls.key.
var keyQualifiers = map[string]bool{
	"api": true, "secret": true, "access": true, "private": true, "auth": true, "master": true,
	"signing": true, "sign": true, "encryption": true, "enc": true, "decryption": true, "account": true,
	"hmac": true, "aes": true, "des": true, "app": true, "admin": true, "client": true, "jwt": true,
	"session": true, "cipher": true, "crypto": true, "shared": true, "deploy": true, "pgp": true, "gpg": true, "root": true, "service": true,
	"write": true, "webhook": true, "server": true, "mac": true, "storage": true, "license": true,
	"tls": true, "ssl": true, "rsa": true, "ec": true, "ed25519": true, "otp": true, "totp": true,
	"mfa": true, "cookie": true, "csrf": true, "rails": true, "django": true, "flask": true,
	"openai": true, "anthropic": true, "stripe": true, "secure": true, "ingest": true, "consumer": true,
}

// seedQualifiers make "seed" a secret: a TOTP seed, a wallet's seed.
var seedQualifiers = map[string]bool{"totp": true, "otp": true, "mfa": true, "2fa": true, "wallet": true, "master": true, "hd": true, "recovery": true}

// trailingWords describe a value's encoding or environment, not what it is.
var trailingWords = map[string]bool{
	"base": true, "data": true, "value": true, "b64": true, "base64": true, "hex": true, "raw": true,
	"str": true, "string": true, "bytes": true, "pem": true, "prod": true, "production": true,
	"dev": true, "staging": true, "test": true, "live": true, "local": true, "old": true, "new": true,
}

// isSecretName reports whether key, as words, names a secret. It reads
// the key's last words from the end, in a buffer, so the common key that
// names nothing costs a few map lookups and no allocation.
func isSecretName(key string) bool {
	var buf [32]byte
	last, lstart := lastWord(key, key, buf[:0])
	for trailingWords[string(last)] && lstart > 0 {
		end := lstart
		for end > 0 && isKeySep(key[end-1]) {
			end--
		}
		if end == 0 {
			break
		}
		last, lstart = lastWord(key, key[:end], buf[:0])
	}
	if len(last) == 0 {
		return false
	}
	if secretWords[string(last)] || hasSecretSuffix(string(last)) {
		return true
	}
	switch string(last) {
	case "pass", "pwd", "pw", "auth", "key", "seed", "phrase", "id", "ident":
	default:
		return false
	}
	b := lstart
	for b > 0 && isKeySep(key[b-1]) {
		b--
	}
	if b == 0 {
		return false
	}
	var buf2 [32]byte
	before, bstart := lastWord(key, key[:b], buf2[:0])
	switch w := string(last); {
	case qualifiedWords[w]:
		return true
	case w == "key":
		return keyQualifiers[string(before)]
	case w == "seed":
		return seedQualifiers[string(before)]
	case w == "phrase":
		return string(before) == "seed" || string(before) == "pass" || string(before) == "recovery" || string(before) == "secret"
	case w == "id":
		// A GCP service account's private_key_id names its key; with the
		// account's e-mail it is half a credential.
		if string(before) != "key" {
			return false
		}
		var buf3 [32]byte
		third, _ := lastWord(key, strings.TrimRight(key[:bstart], "_-."), buf3[:0])
		return string(third) == "private"
	case w == "ident":
		return string(before) == "auth"
	}
	return false
}

func isKeySep(c byte) bool { return c == '_' || c == '-' || c == '.' }

// lastWord returns the word of key that ends where upTo, a prefix of key, does, in lower case in buf,
// and where it starts: it starts after a separator or where camelCase
// starts a word (apiKey, APIKey, ddAppKey). A word too long for buf is
// returned empty.
func lastWord(key, upTo string, buf []byte) ([]byte, int) {
	end := len(upTo)
	start := end
	for start > 0 {
		c := key[start-1]
		if isKeySep(c) {
			break
		}
		if start < end && isUpper(c) && isLower(key[start]) {
			start--
			break
		}
		if start < end && (isLower(c) || isDigit(c)) && isUpper(key[start]) {
			break
		}
		start--
	}
	if end-start > cap(buf) {
		return buf[:0], start
	}
	for i := start; i < end; i++ {
		c := key[i]
		if isUpper(c) {
			c |= 0x20
		}
		buf = append(buf, c)
	}
	return buf, start
}

// hasSecretSuffix reports a word that ends in a secret's name, written as
// one word: PGPASSWORD, authtoken, clientsecret.
func hasSecretSuffix(w string) bool {
	for _, suffix := range [...]string{"password", "passwd", "passphrase", "secret", "token", "apikey", "secretkey", "accesskey", "privatekey", "mnemonic"} {
		if strings.HasSuffix(w, suffix) {
			return true
		}
	}
	return false
}
