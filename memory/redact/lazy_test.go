package redact

import "testing"

// TestShapePatternsCompile compiles every shape's pattern, which deja
// otherwise does only when a text first reaches it: a pattern that does
// not compile fails here, not in a user's index.
func TestShapePatternsCompile(t *testing.T) {
	for _, sh := range shapes {
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("%s: %v", sh.kind, r)
				}
			}()
			sh.re.FindStringSubmatchIndex("")
		}()
	}
}
