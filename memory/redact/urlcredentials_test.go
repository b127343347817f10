package redact

import (
	"strings"
	"testing"
)

func TestURLCredentialsMasksEveryCredential(t *testing.T) {
	for _, c := range []struct{ in, want, secret string }{
		{"nats://alice:S3cretNatsPw@127.0.0.1:4222", "nats://alice:xxxxx@127.0.0.1:4222", "S3cretNatsPw"},
		{"nats://tok3nSecretValue@127.0.0.1:4222", "nats://xxxxx@127.0.0.1:4222", "tok3nSecretValue"},
		{"tls://h1:4222?token=abcdefSECRET&name=x", "tls://h1:4222?token=xxxxx&name=x", "abcdefSECRET"},
		{"nats://h/x?Password=pw12345&user_key=k987", "nats://h/x?Password=xxxxx&user_key=xxxxx", "pw12345"},
		// Short and placeholder-looking passwords are still configured ones.
		{"nats://a:pass@h", "nats://a:xxxxx@h", ":pass@"},
		// A list of servers, and a URL quoted inside an error.
		{"nats://a:Pw1xyz@h1,nats://b:Pw2xyz@h2", "nats://a:xxxxx@h1,nats://b:xxxxx@h2", "Pw"},
		{`team: team.url "nats://a:S3cretNatsPw@[::1" is not a server URL`, `team: team.url "nats://a:xxxxx@[::1" is not a server URL`, "S3cret"},
		{"parse \"nats://u:p@ss@h:99999\": invalid port", "parse \"nats://u:xxxxx@h:99999\": invalid port", "p@ss"},
		// What holds no credential is left as it is.
		{"nats://127.0.0.1:4222 and https://example.com/a?b=c", "nats://127.0.0.1:4222 and https://example.com/a?b=c", ""},
	} {
		got := URLCredentials(c.in)
		if got != c.want {
			t.Errorf("URLCredentials(%q) = %q, want %q", c.in, got, c.want)
		}
		if c.secret != "" && strings.Contains(got, c.secret) {
			t.Errorf("URLCredentials(%q) keeps %q", c.in, c.secret)
		}
		if again := URLCredentials(got); again != got {
			t.Errorf("masking %q again gives %q", got, again)
		}
	}
}
