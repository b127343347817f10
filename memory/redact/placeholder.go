package redact

import "strings"

// isPlaceholder reports whether v is a stand-in a person would not mistake
// for a real secret: "your-key-goes-here", "<password>", "${API_KEY}",
// "xxxxxxxx", `password: string`. Aider's own "...3lCm" counts too: aider scrubs
// keys to their last four characters before it writes the history, so what
// is left is no longer a secret.
func isPlaceholder(v string) bool {
	if v == "" || strings.HasPrefix(v, labelPrefix) {
		return true
	}
	lower := strings.ToLower(v)
	// Whole values that name a type, a default or the key itself; shorter
	// words (None, str, true) are below every rule's minimum length.
	for _, w := range [...]string{
		"undefined", "string", "required", "optional", "hidden", "default",
		"password", "passwd", "secret", "apikey", "api_key", "api-key",
		"secretstr", "sensitive", "masked", "unknown",
	} {
		if lower == w {
			return true
		}
	}
	// Pieces only documentation's stand-ins contain.
	for _, m := range [...]string{
		"...", "…", "xxx", "***", "<", ">", "{", "}", "$", "%s", "%(",
		"your", "changeme", "change_me", "change-me", "placeholder", "redacted",
		"example", "sample", "dummy", "replace", "insert", "here", "todo", "fixme",
	} {
		if strings.Contains(lower, m) {
			return true
		}
	}
	return false
}
