package main

import "strconv"

// plural writes a count with its noun, as people read it: "1 turn",
// "2 turns", "0 turns".
func plural(n int, noun string) string {
	return nouns(n, noun, noun+"s")
}

// nouns is plural for a noun whose plural is not its singular and an s:
// nouns(n, "history", "histories").
func nouns(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// verb agrees with a count: verb(1, "lack") is "lacks", verb(2, "lack")
// "lack".
func verb(n int, v string) string {
	if n == 1 {
		return v + "s"
	}
	return v
}

// allOf names all of a count: "the 1 turn", "all 3 turns".
func allOf(n int, noun string) string {
	if n == 1 {
		return "the 1 " + noun
	}
	return "all " + plural(n, noun)
}

// isAre is "is" after one and "are" after any other count.
func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}
