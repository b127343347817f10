package recall

import (
	"context"
	"slices"
	"strings"
	"testing"
)

// wordsOf must find the words wordRun finds, in every script and with
// every separator.
func TestWordsOfMatchesWordRun(t *testing.T) {
	for _, text := range []string{
		"", "   ", "gunicorn", "run gunicorn --workers=4 on :8000",
		"Keys.BracketedPaste(x)->y", "naïve café Ünïcode", "日本語のテキスト 2024年",
		"a½b Ⅻ x²y", "tab\tnew\nline\r\n", "emoji 🙂 word🙂word", "trailing word",
		"\xff\xfe bad utf8 \xc3", "_under_score_ dash-ed",
	} {
		want := wordRun.FindAllString(text, -1)
		got := slices.Collect(wordsOf(text))
		if !slices.Equal(got, want) {
			t.Errorf("wordsOf(%q) = %q, want %q", text, got, want)
		}
	}
}

func TestHasFoldPrefix(t *testing.T) {
	for _, c := range []struct {
		tok, prefix string
		want        bool
	}{
		{"Gunicorn", "gu", true}, {"GUNICORN", "gu", true}, {"gunicorn", "gu", true},
		{"g", "gu", false}, {"", "gu", false}, {"Über", "üb", true}, {"ab", "", true}, {"xgu", "gu", false},
	} {
		if got := hasFoldPrefix(c.tok, c.prefix); got != c.want {
			t.Errorf("hasFoldPrefix(%q, %q) = %v, want %v", c.tok, c.prefix, got, c.want)
		}
	}
}

// TestRespellingLooksAtTheFirstFewWordsNoTurnHolds: a prompt with a
// pasted listing holds many words no turn holds; only the first
// maxRespelled of them are looked up, so a typo among them is read and
// one after them is left as typed, and the recall still answers.
func TestRespellingLooksAtTheFirstFewWordsNoTurnHolds(t *testing.T) {
	ctx := context.Background()
	s := spellingStore(t)
	filler := []string{"zqxvbnmk", "wplkjhgf", "qazwsxed", "mnbvcxzl", "poiuytre", "lkjhgfds"}
	early := "gunicron " + strings.Join(filler[:maxRespelled-1], " ")
	r, err := Recall(ctx, s, Options{Query: early, Mode: Keyword, Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	if want := []Respelling{{"gunicron", "gunicorn"}}; !slices.Equal(r.Respelled, want) {
		t.Errorf("%q: read %v, want %v", early, r.Respelled, want)
	}
	late := strings.Join(filler[:maxRespelled], " ") + " gunicron"
	r, err = Recall(ctx, s, Options{Query: late, Mode: Keyword, Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Respelled) != 0 {
		t.Errorf("%q: read %v, want nothing past the first %d words no turn holds", late, r.Respelled, maxRespelled)
	}
}
