// Package words writes counts as people read them: "1 turn", "2 turns",
// "1 history", "the 1 turn lacks vectors". The CLI's lines, the service's
// answers to agents and find's status line write their counts with it.
package words

import "strconv"

// Count writes a count with its noun: "1 turn", "2 turns", "0 turns".
func Count(n int, noun string) string {
	return Nouns(n, noun, noun+"s")
}

// Nouns is Count for a noun whose plural is not its singular and an s:
// Nouns(n, "history", "histories").
func Nouns(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// Verb agrees with a count: Verb(1, "lack") is "lacks", Verb(2, "lack")
// "lack".
func Verb(n int, v string) string {
	if n == 1 {
		return v + "s"
	}
	return v
}

// AllOf names all of a count: "the 1 turn", "all 3 turns".
func AllOf(n int, noun string) string {
	if n == 1 {
		return "the 1 " + noun
	}
	return "all " + Count(n, noun)
}

// IsAre is "is" after one and "are" after any other count.
func IsAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}
