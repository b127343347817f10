package harness

import (
	"strconv"
	"strings"
)

// SkippedLine is the warning that a parse skipped n of what: "skipped 3
// entries that are not objects". A what that names one thing ("a file
// whose JSON breaks off") reads "skipped a file whose JSON breaks off",
// and "skipped a message of another shape (3 times)" when it came more
// than once, never "skipped 1 a file".
func SkippedLine(n int, what string) string {
	if strings.HasPrefix(what, "a ") || strings.HasPrefix(what, "an ") {
		if n == 1 {
			return "skipped " + what
		}
		return "skipped " + what + " (" + strconv.Itoa(n) + " times)"
	}
	return "skipped " + strconv.Itoa(n) + " " + what
}
