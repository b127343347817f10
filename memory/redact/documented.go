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

// protectDocumented replaces each documented example in s with a label no
// rule takes for a secret, and returns the function that puts them back;
// s itself and nil when it holds none.
func protectDocumented(s string) (string, func(string) string) {
	var found []string
	for _, d := range documented {
		if strings.Contains(s, d) {
			found = append(found, d)
		}
	}
	if len(found) == 0 || strings.Contains(s, documentedLabel) {
		return s, nil
	}
	pairs := make([]string, 0, 2*len(found))
	back := make([]string, 0, 2*len(found))
	for i, d := range found {
		l := documentedLabel + string(rune('a'+i)) + "]"
		pairs = append(pairs, d, l)
		back = append(back, l, d)
	}
	return strings.NewReplacer(pairs...).Replace(s), strings.NewReplacer(back...).Replace
}

// documentedLabel starts like a redaction label, which every rule already
// leaves alone.
const documentedLabel = labelPrefix + "documented-"
