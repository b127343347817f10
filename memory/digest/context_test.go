package digest

import (
	"context"
	"github.com/deja-dev/deja/memory/memtest"
	"github.com/deja-dev/deja/memory/store"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var digestTime = time.Date(2026, 7, 27, 10, 0, 0, 0, time.UTC)

func digest(t *testing.T, s *store.Store, opts ContextOptions) *ContextDigest {
	t.Helper()
	opts.Now = digestTime
	d, err := Context(context.Background(), s, opts)
	if err != nil {
		t.Fatal(err)
	}
	if got := EstimateTokens(d.Markdown); got != d.Tokens || got > d.Budget {
		t.Fatalf("digest costs %d tokens (reported %d), budget %d", got, d.Tokens, d.Budget)
	}
	return d
}

func itemKeys(d *ContextDigest) []string {
	var keys []string
	for _, it := range d.Items {
		keys = append(keys, it.SessionID[strings.LastIndexByte(it.SessionID, '-')+1:]+"/"+string(rune('0'+it.Turn)))
	}
	return keys
}

func TestContextEmptyStoreStillWritesAFile(t *testing.T) {
	s, path := memtest.Fixture(t)
	d := digest(t, s, ContextOptions{Project: filepath.Dir(path)})
	if len(d.Items) != 0 {
		t.Fatalf("items in an empty store: %v", itemKeys(d))
	}
	if !strings.HasPrefix(d.Markdown, "# What deja remembers of shop\n") || !strings.Contains(d.Markdown, "deja has nothing yet for this project") {
		t.Fatalf("empty digest:\n%s", d.Markdown)
	}
}

// talkThenEdit is a session whose first turn only talks and whose second
// changes a file.
const talkThenEdit = `
# aider chat started at 2026-07-19 08:15:00

#### What does WithTenant do again?  

It adds the tenant predicate to a query.

#### Use it in the invoices query too  

Done.

> Applied edit to internal/db/invoices.go  
`

func TestContextRecentPutsDecisionsFirst(t *testing.T) {
	s, path := memtest.Fixture(t)
	memtest.AppendFile(t, path, talkThenEdit)
	mustIndex(t, s, nil, path)
	d := digest(t, s, ContextOptions{Project: filepath.Dir(path)})
	// Turns with records (files, commands), newest first, then the talk.
	got := strings.Join(itemKeys(d), " ")
	want := "20260719T081500/1 20260718T143000/0 20260717T090000/1 20260717T090000/0 20260719T081500/0"
	if got != want {
		t.Fatalf("recent items %s, want %s\n%s", got, want, d.Markdown)
	}
	for _, frag := range []string{
		"20260718T143000/0 (2026-07-18 14:30)",
		"Asked: Why is the Docker image so big?",
		"Answer: The image copies the whole build context",
		"Files: internal/db/query.go",
		"Ran: go test ./...",
	} {
		if !strings.Contains(d.Markdown, frag) {
			t.Errorf("digest lacks %q:\n%s", frag, d.Markdown)
		}
	}
	if d.Basis != ByRecency {
		t.Errorf("basis %s, want recent", d.Basis)
	}
}

func TestContextQueryRanksAndScopesToProject(t *testing.T) {
	s, path := memtest.Fixture(t)
	mustIndex(t, s, nil, path)
	d := digest(t, s, ContextOptions{Project: filepath.Dir(path), Query: "Dockerfile", NoEmbedder: "test"})
	if d.Basis != ByQuery || len(d.Items) != 1 || d.Items[0].Files[0] != "Dockerfile" {
		t.Fatalf("query digest %s %v:\n%s", d.Basis, itemKeys(d), d.Markdown)
	}
	if !strings.Contains(d.Markdown, `best match "Dockerfile"`) {
		t.Errorf("digest does not say what it matched:\n%s", d.Markdown)
	}

	other := digest(t, s, ContextOptions{Project: filepath.Join(filepath.Dir(path), "elsewhere"), Query: "Dockerfile"})
	if len(other.Items) != 0 || !strings.Contains(other.Markdown, "nothing yet") {
		t.Fatalf("another project got %v", itemKeys(other))
	}

	miss := digest(t, s, ContextOptions{Project: filepath.Dir(path), Query: "zxqvbnm", NoEmbedder: "test"})
	if miss.Basis != ByRecency || len(miss.Items) == 0 || !strings.Contains(miss.Markdown, `matches "zxqvbnm"`) {
		t.Fatalf("an unmatched query should fall back to recent turns and say so: %s %v\n%s", miss.Basis, itemKeys(miss), miss.Markdown)
	}
}

func TestContextStopsAtTheBudget(t *testing.T) {
	s, path := memtest.Fixture(t)
	mustIndex(t, s, nil, path)
	full := digest(t, s, ContextOptions{Project: filepath.Dir(path)})
	if len(full.Items) != 3 || full.Left != 0 {
		t.Fatalf("default budget holds %d items, left %d", len(full.Items), full.Left)
	}
	// A budget that ends inside the third item keeps two.
	// The header states the budget: a three-digit one here, as in the
	// budgets below, so the header costs what theirs does.
	bare, err := Context(context.Background(), s, ContextOptions{Project: filepath.Dir(path), Budget: 100, Now: digestTime})
	if err != nil {
		t.Fatal(err)
	}
	if len(bare.Items) != 0 || !strings.HasPrefix(bare.Markdown, "# What deja remembers of shop\n") {
		t.Fatalf("a budget below the header should keep the header alone:\n%s", bare.Markdown)
	}
	header := bare.Markdown
	two := header + full.Items[0].markdown() + full.Items[1].markdown()
	note := "\n1 more turns did not fit the budget; 'deja recall' finds them.\n"
	d := digest(t, s, ContextOptions{Project: filepath.Dir(path), Budget: EstimateTokens(two + note)})
	if len(d.Items) != 2 || d.Left != 1 || !strings.HasSuffix(d.Markdown, note) {
		t.Fatalf("a budget for two turns and the note kept %d, left %d:\n%s", len(d.Items), d.Left, d.Markdown)
	}
	// Two turns without room for the note: the note wins over the second.
	d = digest(t, s, ContextOptions{Project: filepath.Dir(path), Budget: EstimateTokens(two)})
	if len(d.Items) != 1 || d.Left != 2 || !strings.Contains(d.Markdown, "2 more turns did not fit") {
		t.Fatalf("a budget for two turns alone kept %d, left %d:\n%s", len(d.Items), d.Left, d.Markdown)
	}
	if EstimateTokens("abcdefgh") != 2 || EstimateTokens("abcdefghi") != 3 {
		t.Errorf("EstimateTokens is not ~4 characters a token")
	}
}
