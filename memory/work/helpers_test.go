package work

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/memory/index"
	"github.com/deja-dev/deja/memory/memtest"
	"github.com/deja-dev/deja/memory/recall"
	"github.com/deja-dev/deja/memory/store"
)

// sessionsReader reads a history of harness.Session values, one JSON
// object a line: sessions with every kind of outcome and span, as any
// reader may hand them over, indexed through the real pipeline.
type sessionsReader struct{}

func (sessionsReader) Name() string                                       { return "worktest" }
func (sessionsReader) Discover(harness.DiscoverOptions) harness.Discovery { return harness.Discovery{} }
func (sessionsReader) ValidID(id string) bool                             { return strings.HasPrefix(id, "worktest-") }
func (sessionsReader) Sniff(path string, _ []byte) error {
	if strings.HasSuffix(path, ".sessions.jsonl") {
		return nil
	}
	return errors.New("not a sessions file")
}

func (sessionsReader) Parse(data []byte, opts harness.ParseOptions) *harness.History {
	h := &harness.History{Path: opts.Path}
	off := int64(0)
	for i, line := range bytes.SplitAfter(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) > 0 {
			var s harness.Session
			if err := json.Unmarshal(line, &s); err != nil {
				h.Warnings = append(h.Warnings, err.Error())
			} else {
				s.Ordinal, s.Offset, s.End = i+1, opts.Offset+off, opts.Offset+off+int64(len(line))
				h.Sessions = append(h.Sessions, s)
			}
		}
		off += int64(len(line))
	}
	return h
}

// day is the n-th day of the test's month, at noon.
func day(n int) time.Time { return time.Date(2026, 3, n, 12, 0, 0, 0, time.UTC) }

// session builds a session of the project with turns of one question
// each, their records placed by turn.
func session(id, project string, started time.Time, questions []string, records ...harness.Record) harness.Session {
	s := harness.Session{ID: "worktest-" + id, Project: project, Started: started}
	for i, q := range questions {
		s.Messages = append(s.Messages,
			harness.Message{Role: harness.User, Text: q, Turn: i, Line: i + 1, Time: started.Add(time.Duration(i) * time.Minute)},
			harness.Message{Role: harness.Assistant, Text: "Done: " + q, Turn: i, Line: i + 1, Time: started.Add(time.Duration(i) * time.Minute)})
	}
	s.Records = records
	return s
}

func ran(turn int, command string, exit int, output string) harness.Record {
	return harness.Record{Kind: harness.CommandRecord, Value: command, Turn: turn,
		Outcome: harness.Outcome{Status: harness.StatusOfExit(exit), Exit: harness.ExitStatus(exit), Output: harness.ClipOutput(output)}}
}

func edited(turn int, file, old, new string, st harness.Status) harness.Record {
	return harness.Record{Kind: harness.FileRecord, Value: file, Action: harness.Edited, Turn: turn,
		Outcome: harness.Outcome{Status: st}, Span: harness.Span{Old: old, New: new}}
}

func read(turn int, file string) harness.Record {
	return harness.Record{Kind: harness.FileRecord, Value: file, Action: harness.Read, Turn: turn}
}

// indexed writes the sessions as a history and indexes it into a new
// store.
func indexed(t *testing.T, sessions ...harness.Session) *store.Store {
	t.Helper()
	dir := t.TempDir()
	var b bytes.Buffer
	for _, s := range sessions {
		line, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	path := filepath.Join(dir, "h.sessions.jsonl")
	if err := os.WriteFile(path, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := store.Open(context.Background(), filepath.Join(dir, "data"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	rep, err := index.Index(context.Background(), s, index.Options{Paths: []string{path},
		Harnesses: harness.Registry{sessionsReader{}}, Embedder: memtest.NewWordsEmbedder()})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Problems) > 0 || len(rep.Warnings) > 0 {
		t.Fatalf("indexing: problems %v, warnings %v", rep.Problems, rep.Warnings)
	}
	return s
}

// all is the scope of every session.
var all = recall.Scope{}
