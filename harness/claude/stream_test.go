package claude

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/deja-dev/deja/harness"
)

// TestStreamParsesWhatParseParses: a transcript parsed as its lines are
// read, in chunks of any size (a line cut across none, one or many), is
// the transcript parsed whole: every fixture, and one whose last line is
// still being written, read from the file's start and from further on.
func TestStreamParsesWhatParseParses(t *testing.T) {
	files, err := filepath.Glob("testdata/*.jsonl")
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	inputs := map[string][]byte{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		inputs[filepath.Base(f)] = data
	}
	whole := inputs[filepath.Base(files[0])]
	inputs["partial last line"] = append(bytes.Clone(whole), `{"type":"user","uuid":"x9","sessionId":"11111111-2222-4333-8444-555555555555","message":{"role":"user","content":"half`...)
	// Named by a session id, as a transcript that streams is.
	path := fixtureDir + "11111111-2222-4333-8444-555555555555.jsonl"
	if !(Reader{}).Streams(path, nil) || (Reader{}).Streams(fixtureDir+"agent-a1.jsonl", nil) {
		t.Fatal("Streams: want a transcript named by its session id, and only it")
	}
	for name, data := range inputs {
		for _, offset := range []int64{0, 1000} {
			opts := harness.ParseOptions{Path: path, Offset: offset, FirstOrdinal: 3}
			want := harness.ParseFile(Reader{}, data, opts)
			for _, chunk := range []int{1, 100, 1 << 20} {
				got, n, err := harness.ParseStream(Reader{}, bytes.NewReader(data), chunk, 0, opts)
				if err != nil || n != int64(len(data)) {
					t.Fatalf("%s, chunk %d: read %d of %d bytes, %v", name, chunk, n, len(data), err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s at %d, chunk %d: streamed\n%+v\nwhole\n%+v", name, offset, chunk, got, want)
				}
			}
		}
	}
}

// TestPiecesAddUpToTheWhole: a transcript handed over in pieces of any
// size is the transcript parsed whole: each session's pieces, in order,
// hold its messages and records, each once and no turn in two pieces,
// and the last piece holds every session with its final header.
func TestPiecesAddUpToTheWhole(t *testing.T) {
	files, err := filepath.Glob("testdata/*.jsonl")
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	path := fixtureDir + "11111111-2222-4333-8444-555555555555.jsonl"
	sawPieces := false
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		opts := harness.ParseOptions{Path: path, FirstOrdinal: 2}
		want := harness.ParseFile(Reader{}, data, opts)
		for _, piece := range []int{1, 300, 5000} {
			type gathered struct {
				msgs []harness.Message
				recs []harness.Record
				// last is the last turn a piece held.
				last int
			}
			got := map[string]*gathered{}
			pieces := 0
			add := func(h *harness.History) {
				for _, s := range h.Sessions {
					g := got[s.ID]
					if g == nil {
						g = &gathered{last: -2}
						got[s.ID] = g
					}
					for _, m := range s.Messages {
						if m.Turn <= g.last {
							t.Errorf("%s, piece %d: session %s's turn %d comes after a piece held turn %d", f, piece, s.ID, m.Turn, g.last)
						}
					}
					first := g.last
					for _, m := range s.Messages {
						g.last = max(g.last, m.Turn)
					}
					for _, r := range s.Records {
						if r.Turn <= first {
							t.Errorf("%s, piece %d: session %s's record of turn %d comes after a piece held turn %d", f, piece, s.ID, r.Turn, first)
						}
						g.last = max(g.last, r.Turn)
					}
					g.msgs = append(g.msgs, s.Messages...)
					g.recs = append(g.recs, s.Records...)
				}
			}
			last, n, err := harness.ParsePieces(Reader{}, bytes.NewReader(data), 100, piece, 0, opts, func(h *harness.History, size int64) error {
				if size <= 0 {
					t.Errorf("%s: a piece of %d bytes", f, size)
				}
				pieces++
				add(h)
				return nil
			})
			if err != nil || n != int64(len(data)) {
				t.Fatalf("%s, piece %d: read %d of %d bytes, %v", f, piece, n, len(data), err)
			}
			add(last)
			if pieces > 0 {
				sawPieces = true
			}
			if len(last.Sessions) != len(want.Sessions) {
				t.Fatalf("%s, piece %d: the last piece holds %d sessions, the whole parse %d", f, piece, len(last.Sessions), len(want.Sessions))
			}
			for i, w := range want.Sessions {
				l := last.Sessions[i]
				g := got[w.ID]
				if l.ID != w.ID || g == nil {
					t.Fatalf("%s, piece %d: session %d is %s, want %s", f, piece, i, l.ID, w.ID)
				}
				header := func(s harness.Session) harness.Session {
					s.Messages, s.Records = nil, nil
					return s
				}
				if !reflect.DeepEqual(header(l), header(w)) {
					t.Errorf("%s, piece %d: last piece's header\n%+v\nwant\n%+v", f, piece, header(l), header(w))
				}
				if !reflect.DeepEqual(g.msgs, w.Messages) || !reflect.DeepEqual(g.recs, w.Records) {
					t.Errorf("%s, piece %d: session %s's pieces hold %d messages and %d records, the whole parse %d and %d",
						f, piece, w.ID, len(g.msgs), len(g.recs), len(w.Messages), len(w.Records))
				}
			}
			if !reflect.DeepEqual(last.Warnings, want.Warnings) {
				t.Errorf("%s, piece %d: warnings %q, want %q", f, piece, last.Warnings, want.Warnings)
			}
		}
	}
	if !sawPieces {
		t.Fatal("no fixture was handed over in more than one piece")
	}
}
