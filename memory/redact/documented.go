package redact

import "strings"

// documented are credentials that providers print in their own
// documentation as examples: they are in every tutorial and unlock nothing,
// and a user searching for one expects to find it. Each is kept whole, even
// where it has a secret's shape.
var documented = []string{
	"AKIAIOSFODNN7EXAMPLE",                     // AWS access key ID
	"wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", // AWS secret access key
	"je7MtGbClwBF/2Zp9Utk/h3yCo8nvbEXAMPLEKEY", // AWS secret access key (STS)
	"sk_test_4eC39HqLyjWDarjtT1zdp7dc",         // Stripe
	"sk_test_BQokikJOvBiI2HlWgH4olfQ2",         // Stripe, older docs
	"rk_test_4eC39HqLyjWDarjtT1zdp7dc",         // Stripe restricted
	"whsec_1234567890abcdefghijklmnopqrstuv",   // Stripe webhook secret in docs
	"eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c", // jwt.io
	"xoxb-not-a-real-token-this-will-not-work", // Slack
	"ghp_16C7e42F292c6912E7710c838347Ae178B4a", // GitHub docs
	"AIzaSyDaGmWKa4JsXZ-HjGw7ISLn_3namBGewQe",  // Google Maps docs
}

// keepDocumented drops the edits that touch a documented example. Only
// the text around an edit is searched, so a text with no secret pays
// nothing.
func keepDocumented(s string, edits []edit) []edit {
	out := edits[:0]
	for _, e := range edits {
		if !nearDocumented(s, e.start, e.end) {
			out = append(out, e)
		}
	}
	return out
}

// nearDocumented reports whether a documented example overlaps s[start:end].
func nearDocumented(s string, start, end int) bool {
	from, to := max(0, start-maxDocumented), min(len(s), end+maxDocumented)
	window := s[from:to]
	for _, d := range documented {
		for i := 0; ; {
			k := strings.Index(window[i:], d)
			if k < 0 {
				break
			}
			at := from + i + k
			if at < end && start < at+len(d) {
				return true
			}
			i += k + 1
		}
	}
	return false
}

// maxDocumented is the length of the longest documented example.
var maxDocumented = func() int {
	n := 0
	for _, d := range documented {
		n = max(n, len(d))
	}
	return n
}()
