package continuedev

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/internal/jsonscan"
)

// maxIndex bounds the sessions.json read: an entry is about 200 bytes, so
// this holds some 80,000 sessions.
const maxIndex = 16 << 20

// started is when the session sid began: the dateCreated its entry in the
// sessions.json beside path gives (epoch milliseconds as a string, set
// from Date.now() when the session is first saved: core/util/history.ts
// HistoryManager.save), else the session file's modification time, which
// is no earlier than the start (cn's own session list shows the file's
// birth time, which Go does not read on every system). Continue writes no
// time on any message. The zero time when neither is known.
func started(path, sid string) time.Time {
	if path == "" {
		return time.Time{}
	}
	if t := indexDate(loadIndex(filepath.Dir(path)), sid); !t.IsZero() {
		return t
	}
	if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() {
		return fi.ModTime().UTC()
	}
	return time.Time{}
}

// loadIndex reads the sessions.json in dir, nil when there is none or it
// is too large.
func loadIndex(dir string) []byte {
	f, err := harness.OpenSide(filepath.Join(dir, indexFile))
	if err != nil {
		return nil
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxIndex+1))
	if err != nil || len(data) > maxIndex {
		return nil
	}
	return data
}

// indexDate finds sid's entry in a sessions.json, an array of
// {sessionId, title, dateCreated, workspaceDirectory, messageCount}, and
// returns its dateCreated; zero when the index does not list it or its
// date is not one. Entries of the 2023 format (session_id, date_created)
// name no session Continue still reads and are passed over.
func indexDate(index []byte, sid string) time.Time {
	if len(index) == 0 || !bytes.Contains(index, []byte(sid)) {
		return time.Time{}
	}
	var found time.Time
	sc := jsonscan.New(index)
	sc.Array(func() {
		var id string
		var date time.Time
		sc.Object(func(key []byte) bool {
			switch string(key) {
			case "sessionId":
				id = sc.String()
			case "dateCreated":
				date = dateValue(sc)
			default:
				return false
			}
			return true
		})
		if id == sid && found.IsZero() {
			found = date
		}
	})
	return found
}

// dateValue reads a dateCreated: epoch milliseconds as a string (what
// Continue writes) or a number, or an RFC 3339 time (cn's session list
// shows one, though it never writes it to the index). Dates before 2023
// or after 2200 are none.
func dateValue(sc *jsonscan.Scanner) time.Time {
	var t time.Time
	switch sc.Kind() {
	case '"':
		s := sc.String()
		if ms, err := strconv.ParseInt(s, 10, 64); err == nil {
			t = time.UnixMilli(ms)
		} else {
			t = harness.ParseTime(s)
		}
	default:
		if ms := sc.Int(); ms > 0 {
			t = time.UnixMilli(ms)
		}
	}
	if t.Year() < 2023 || t.Year() > 2200 {
		return time.Time{}
	}
	return t.UTC()
}
