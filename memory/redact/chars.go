package redact

import "unicode/utf8"

// classes reports which character classes t mixes; random tokens mix all
// three, identifiers, hex digests and version strings do not.
func classes(t string) (upper, lower, digit bool) {
	u, l, d := classCounts(t)
	return u > 0, l > 0, d > 0
}

// classCounts counts t's upper-case letters, lower-case letters and digits.
func classCounts(t string) (upper, lower, digit int) {
	for i := 0; i < len(t); i++ {
		switch c := t[i]; {
		case 'A' <= c && c <= 'Z':
			upper++
		case 'a' <= c && c <= 'z':
			lower++
		case '0' <= c && c <= '9':
			digit++
		}
	}
	return upper, lower, digit
}

func isLower(c byte) bool { return 'a' <= c && c <= 'z' }
func isUpper(c byte) bool { return 'A' <= c && c <= 'Z' }
func isDigit(c byte) bool { return '0' <= c && c <= '9' }
func isAlnum(c byte) bool { return isLower(c) || isUpper(c) || isDigit(c) }

func isHex(t string) bool {
	for i := 0; i < len(t); i++ {
		c := t[i]
		if !isDigit(c) && !('a' <= c && c <= 'f') && !('A' <= c && c <= 'F') {
			return false
		}
	}
	return t != ""
}

// classRuns counts t's runs of one character class, a capital and the
// lower case after it making one run (Enum, HTTP, Server, 11302); a
// separator ends a run but is not one. Random base62 changes class every 1.9
// characters and averages 3 or more a run once in a hundred tokens of 24
// characters, once in a thousand of 40. Identifiers, even with numbers in
// them, run longer: Enum11107_ENUM_VALUE11302 averages 5.0,
// getUserByIdFromDatabaseV2Async 3.3, PostIncBitFieldPtr16Int32 3.1.
func classRuns(t string) int {
	runs := 0
	for i := 0; i < len(t); {
		c := class(t[i])
		j := i + 1
		switch {
		case c == classUpper && j < len(t) && class(t[j]) == classLower:
			for j < len(t) && class(t[j]) == classLower {
				j++
			}
		default:
			// An upper-case run gives its last capital to a word after
			// it: HTTPServer is HTTP, Server.
			for j < len(t) && class(t[j]) == c && !(c == classUpper && j+1 < len(t) && class(t[j+1]) == classLower) {
				j++
			}
		}
		if c != classOther {
			runs++
		}
		i = j
	}
	return runs
}

// Character classes for classRuns.
const (
	classLower = iota
	classUpper
	classDigit
	classOther
)

func class(c byte) int {
	switch {
	case isLower(c):
		return classLower
	case isUpper(c):
		return classUpper
	case isDigit(c):
		return classDigit
	}
	return classOther
}

// printable reports whether t is text with no control characters.
func printable(t string) bool {
	for _, r := range t {
		if r < ' ' && r != '\n' && r != '\t' && r != '\r' || r == utf8.RuneError || r == 0x7f {
			return false
		}
	}
	return true
}
