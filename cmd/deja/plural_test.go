package main

import "testing"

func TestCountsReadAsPeopleWriteThem(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{plural(0, "turn"), "0 turns"},
		{plural(1, "turn"), "1 turn"},
		{plural(2, "user message"), "2 user messages"},
		{nouns(1, "history", "histories"), "1 history"},
		{nouns(3, "history", "histories"), "3 histories"},
		{verb(1, "lack"), "lacks"},
		{verb(0, "lack"), "lack"},
		{allOf(1, "turn"), "the 1 turn"},
		{allOf(4, "turn"), "all 4 turns"},
		{isAre(1), "is"},
		{isAre(2), "are"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}
