package memtest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/deja-dev/deja/aider"
	"github.com/deja-dev/deja/userfile"
)

const ThirdSession = `
# aider chat started at 2026-07-19 08:15:00

#### Add rate limiting to the login endpoint  

I added a token bucket limiter in middleware/ratelimit.go and wired it into the login route.

> Applied edit to middleware/ratelimit.go  
`

func AppendFile(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
	f.Close()
}

// secondHistory writes another project's history holding thirdSession.
func SecondHistory(t *testing.T) string {
	t.Helper()
	project := filepath.Join(t.TempDir(), "api")
	if err := os.MkdirAll(project, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(project, aider.HistoryFileName)
	if err := os.WriteFile(path, []byte(ThirdSession), 0o644); err != nil {
		t.Fatal(err)
	}
	path, err := userfile.ResolvePath(path)
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// longSession is a last session of three turns, to be cut by hand.
const LongSession = `
# aider chat started at 2026-07-19 08:15:00

#### Add rate limiting to the login endpoint  

I added a token bucket limiter in middleware/ratelimit.go and wired it into the login route.

#### Log every rejected login with the client address  

The limiter now logs rejections through slog with the remote address.

#### Make the bucket size configurable  

Added a RATE_LIMIT_BURST setting read in config.go.
`
