package harnesstest

import (
	"bytes"
	"io"
	"reflect"
	"testing"

	"github.com/deja-dev/deja/harness"
)

// PiecesAddUp checks that a history streamed by ls and handed over in
// pieces of any size (harness.ParsePieces; none at all included) is the
// history parsed whole: each session's pieces, in order, hold its
// messages and records, each once and no turn in two pieces, and the
// last piece holds every session with its final header and the
// warnings. A Prescanner's Prescan is run first, as the indexer runs it.
// It returns how many pieces were handed over in all.
func PiecesAddUp(t *testing.T, name string, ls harness.LineStreamer, data []byte, opts harness.ParseOptions) int {
	t.Helper()
	want := harness.ParseFile(ls, data, opts)
	if pre, ok := ls.(harness.Prescanner); ok {
		found, err := pre.Prescan(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%s: prescan: %v", name, err)
		}
		opts.Prescanned = found
	}
	pieces := 0
	for _, piece := range []int{0, 1, 300, 5000} {
		type gathered struct {
			msgs []harness.Message
			recs []harness.Record
			// last is the last turn a piece held.
			last int
		}
		got := map[string]*gathered{}
		add := func(h *harness.History) {
			for _, s := range h.Sessions {
				g := got[s.ID]
				if g == nil {
					g = &gathered{last: -2}
					got[s.ID] = g
				}
				before := g.last
				for _, m := range s.Messages {
					if m.Turn <= before {
						t.Errorf("%s, piece %d: session %s's message of turn %d comes after a piece held turn %d", name, piece, s.ID, m.Turn, before)
					}
					g.last = max(g.last, m.Turn)
				}
				for _, r := range s.Records {
					if r.Turn <= before {
						t.Errorf("%s, piece %d: session %s's record of turn %d comes after a piece held turn %d", name, piece, s.ID, r.Turn, before)
					}
					g.last = max(g.last, r.Turn)
				}
				g.msgs = append(g.msgs, s.Messages...)
				g.recs = append(g.recs, s.Records...)
			}
		}
		last, n, err := harness.ParsePieces(ls, io.Reader(bytes.NewReader(data)), 100, piece, 0, opts, func(h *harness.History, size int64) error {
			if size <= 0 {
				t.Errorf("%s: a piece of %d bytes", name, size)
			}
			if piece == 0 {
				t.Errorf("%s: a piece handed over with pieces off", name)
			}
			pieces++
			add(h)
			return nil
		})
		if err != nil || n != int64(len(data)) {
			t.Fatalf("%s, piece %d: read %d of %d bytes, %v", name, piece, n, len(data), err)
		}
		add(last)
		if len(last.Sessions) != len(want.Sessions) {
			t.Fatalf("%s, piece %d: the last piece holds %d sessions, the whole parse %d", name, piece, len(last.Sessions), len(want.Sessions))
		}
		header := func(s harness.Session) harness.Session {
			s.Messages, s.Records = nil, nil
			return s
		}
		for i, w := range want.Sessions {
			l := last.Sessions[i]
			g := got[w.ID]
			if l.ID != w.ID || g == nil {
				t.Fatalf("%s, piece %d: session %d is %s, want %s", name, piece, i, l.ID, w.ID)
			}
			if !reflect.DeepEqual(header(l), header(w)) {
				t.Errorf("%s, piece %d: the last piece's header\n%+v\nwant\n%+v", name, piece, header(l), header(w))
			}
			if !reflect.DeepEqual(g.msgs, w.Messages) || !reflect.DeepEqual(g.recs, w.Records) {
				t.Errorf("%s, piece %d: session %s's pieces hold %d messages and %d records, the whole parse %d and %d",
					name, piece, w.ID, len(g.msgs), len(g.recs), len(w.Messages), len(w.Records))
			}
		}
		if !reflect.DeepEqual(last.Warnings, want.Warnings) || !reflect.DeepEqual(last.Refused, want.Refused) {
			t.Errorf("%s, piece %d: warnings %q and refusals %q, want %q and %q", name, piece, last.Warnings, last.Refused, want.Warnings, want.Refused)
		}
	}
	return pieces
}

// AllPiecesAddUp runs PiecesAddUp on each input, with the options opts
// gives for its name, and fails t when no input was handed over in more
// than one piece (a check that never cut a session checks nothing).
func AllPiecesAddUp(t *testing.T, ls harness.LineStreamer, inputs map[string][]byte, opts func(name string) harness.ParseOptions) {
	t.Helper()
	pieces := 0
	for name, data := range inputs {
		pieces += PiecesAddUp(t, name, ls, data, opts(name))
	}
	if pieces == 0 {
		t.Fatal("no input was handed over in more than one piece")
	}
}

// ParseAfterPrescan parses other, streamed, with what pre's Prescan found
// in data: a history rewritten between the indexer's Prescan and its
// parse. It fails t on an error; the caller checks what it returns.
func ParseAfterPrescan(t *testing.T, pre harness.Prescanner, data, other []byte, opts harness.ParseOptions) *harness.History {
	t.Helper()
	found, err := pre.Prescan(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	opts.Prescanned = found
	h, _, err := harness.ParseStream(pre, bytes.NewReader(other), 7, 0, opts)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// PrescanEndsTheParse fails t unless a history that grew from before to
// after between its Prescan and its parse parses as before: the lines
// written since are left for the next read. after must parse otherwise
// than before, or the check checks nothing.
func PrescanEndsTheParse(t *testing.T, pre harness.Prescanner, before, after []byte, opts harness.ParseOptions) {
	t.Helper()
	want := harness.ParseFile(pre, before, opts)
	if reflect.DeepEqual(harness.ParseFile(pre, after, opts), want) {
		t.Fatal("what is written after the prescan changes nothing: the check checks nothing")
	}
	if got := ParseAfterPrescan(t, pre, before, after, opts); !reflect.DeepEqual(got, want) {
		t.Fatalf("parsed past the prescan:\n%+v\nwant\n%+v", got, want)
	}
}
