package words

import "testing"

func TestCountsReadAsPeopleWriteThem(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{Count(0, "turn"), "0 turns"},
		{Count(1, "turn"), "1 turn"},
		{Count(2, "user message"), "2 user messages"},
		{Nouns(1, "history", "histories"), "1 history"},
		{Nouns(3, "history", "histories"), "3 histories"},
		{Verb(1, "lack"), "lacks"},
		{Verb(0, "lack"), "lack"},
		{AllOf(1, "turn"), "the 1 turn"},
		{AllOf(4, "turn"), "all 4 turns"},
		{IsAre(1), "is"},
		{IsAre(2), "are"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}
