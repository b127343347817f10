package harness

import (
	"strings"
	"testing"
)

// TestQuotedRedactsBeforeItCuts: a warning quotes a record's value cut to
// 40 bytes; cut first, "echo 'deploy:PW' | sudo chpasswd" loses the word
// that makes PW a password, so the value is redacted whole, then cut.
func TestQuotedRedactsBeforeItCuts(t *testing.T) {
	const pw = "Vq8rT2mXw9Lk"
	for _, v := range []string{
		"echo 'deploy:" + pw + "' | sudo chpasswd",
		"mysql -uroot -p" + pw + " -e 'show databases'",
		"curl -u admin:" + pw + " https://jenkins.corp.dev/api/json",
	} {
		got := Quoted(v)
		if strings.Contains(got, pw[:6]) {
			t.Errorf("Quoted(%q) = %s: the password is in it", v, got)
		}
	}
	if got := Quoted("\x1b]52;c;ZWNobyBoaQ==\x07" + strings.Repeat("é", 40)); strings.ContainsAny(got, "\x1b\x07") || !strings.HasSuffix(got, `…"`) {
		t.Errorf("Quoted kept a control or lost its cut mark: %s", got)
	}
}
