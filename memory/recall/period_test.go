package recall

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/deja-dev/deja/memory/index"
	"github.com/deja-dev/deja/memory/memtest"
	"github.com/deja-dev/deja/memory/store"
)

func TestQueryPeriodReadsTheTimeAQueryNames(t *testing.T) {
	utc := time.UTC
	day := func(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, utc) }
	// A Wednesday afternoon.
	now := time.Date(2026, 12, 9, 15, 30, 0, 0, utc)
	cases := []struct {
		query    string
		from, to time.Time
	}{
		{"Where did Joanna travel to in July 2022?", day(2022, 7, 1), day(2022, 8, 1)},
		{"What did Gina find on 1 February, 2023?", day(2023, 2, 1), day(2023, 2, 2)},
		{"the 3rd of May 2023 outage", day(2023, 5, 3), day(2023, 5, 4)},
		{"Who did Maria have dinner with on May 3, 2023?", day(2023, 5, 3), day(2023, 5, 4)},
		{"what broke on Sept. 14 2025", day(2025, 9, 14), day(2025, 9, 15)},
		{"the deploy of 2026-03-17", day(2026, 3, 17), day(2026, 3, 18)},
		{"that tenant bug in 2025", day(2025, 1, 1), day(2026, 1, 1)},
		{"the migration in March", day(2026, 3, 1), day(2026, 4, 1)},
		{"flaky tests since december", day(2026, 12, 1), day(2026, 12, 10)},
		{"flaky tests since 2025", day(2025, 1, 1), day(2026, 12, 10)},
		{"the outage in March of 2023", day(2023, 3, 1), day(2023, 4, 1)},
		{"a context of 2048 tokens last week", day(2026, 11, 30), day(2026, 12, 7)},
		{"what we fixed yesterday", day(2026, 12, 8), day(2026, 12, 9)},
		{"today's deploy", day(2026, 12, 9), day(2026, 12, 10)},
		{"the cache change last week", day(2026, 11, 30), day(2026, 12, 7)},
		{"this week's refactor", day(2026, 12, 7), day(2026, 12, 10)},
		{"over the past week", day(2026, 12, 2), day(2026, 12, 10)},
		{"the rollout last month", day(2026, 11, 1), day(2026, 12, 1)},
		{"what I tried last year", day(2025, 1, 1), day(2026, 1, 1)},
		{"the bug from 3 days ago", day(2026, 12, 6), day(2026, 12, 7)},
		{"two weeks ago", day(2026, 11, 22), day(2026, 11, 29)},
	}
	for _, c := range cases {
		p, ok := queryPeriod(c.query, now)
		if !ok || !p.from.Equal(c.from) || !p.to.Equal(c.to) {
			t.Errorf("%q: %v–%v (%v), want %v–%v", c.query, p.from, p.to, ok, c.from, c.to)
		}
	}
	// A bare month not yet begun this year is last year's.
	if p, ok := queryPeriod("the outage in March", day(2026, 2, 10)); !ok || !p.from.Equal(day(2025, 3, 1)) {
		t.Errorf("in March, asked in February: %v (%v), want March 2025", p.from, ok)
	}
	for _, q := range []string{
		"the tenant bug", "may I see the diff", "port 8080", "31 February 2023",
		"the 2023-13-40 build", "march the files into the folder", "a year of logs",
	} {
		if p, ok := queryPeriod(q, now); ok {
			t.Errorf("%q names %v–%v; it names no time", q, p.from, p.to)
		}
	}
}

func TestPeriodDistanceIsDaysOutside(t *testing.T) {
	p := period{time.Date(2023, 5, 1, 0, 0, 0, 0, time.UTC), time.Date(2023, 6, 1, 0, 0, 0, 0, time.UTC)}
	for _, c := range []struct {
		at   time.Time
		want float64
	}{
		{time.Date(2023, 5, 1, 0, 0, 0, 0, time.UTC), 0},
		{time.Date(2023, 5, 31, 23, 0, 0, 0, time.UTC), 0},
		{time.Date(2023, 4, 29, 0, 0, 0, 0, time.UTC), 2},
		{time.Date(2023, 6, 4, 0, 0, 0, 0, time.UTC), 3},
	} {
		if got := p.distance(c.at); got != c.want {
			t.Errorf("%v: %v days, want %v", c.at, got, c.want)
		}
	}
}

const periodHistory = `
# aider chat started at 2025-03-04 10:00:00

#### the nightly backup job fails on the staging database

The backup script ran out of disk; I moved its scratch files to /var/tmp.

# aider chat started at 2025-07-15 10:00:00

#### the nightly backup job fails again on the staging database

The backup now fails on a lock; I added a retry around pg_dump.

# aider chat started at 2025-11-20 10:00:00

#### the nightly backup job fails once more on the staging database

This time the credentials expired; I rotated them.
`

// TestTheTimeAQueryNamesRanksTurnsFromThenFirst: three turns say the same
// thing months apart; naming a month puts that month's turn first, and
// naming a time no turn is from still finds them all (a prior, never a
// filter).
func TestTheTimeAQueryNamesRanksTurnsFromThenFirst(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := store.Open(ctx, filepath.Join(dir, "store"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	emb := memtest.NewWordsEmbedder()
	path := memtest.WriteHistory(t, dir, ".aider.chat.history.md", []byte(periodHistory))
	if _, err := index.Index(ctx, s, index.Options{Paths: []string{path}, Embedder: emb, Location: time.UTC}); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2025, 12, 1, 12, 0, 0, 0, time.UTC)
	first := func(q string) (string, int) {
		t.Helper()
		r, err := Recall(ctx, s, Options{Query: q, Embedder: emb, Limit: 5, Now: now})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Results) == 0 {
			t.Fatalf("%q found nothing", q)
		}
		return r.Results[0].Assistant, len(r.Results)
	}
	for q, want := range map[string]string{
		"the backup job failing in July 2025":    "pg_dump",
		"the backup job failing in March 2025":   "/var/tmp",
		"why did the backup job fail last month": "rotated",
	} {
		got, _ := first(q)
		if !strings.Contains(got, want) {
			t.Errorf("%q: first answer %q, want the one mentioning %q", q, got, want)
		}
	}
	if _, n := first("the backup job failing in January 2020"); n != 3 {
		t.Errorf("a time no turn is from left %d of the 3 turns, want all 3", n)
	}
}
