package chunk

import (
	"encoding/json"
	"slices"
	"time"

	"github.com/deja-dev/deja/harness"
)

// Work is what a turn did beyond its words, where the harness recorded
// it: each command it ran with how that ended, each edit with the text it
// replaced. It is what 'deja blame', 'how', 'fix' and 'restore' answer
// from; a turn whose harness recorded no outcome and no span has none.
type Work struct {
	Runs  []Run  `json:"runs,omitempty"`
	Edits []Edit `json:"edits,omitempty"`
	// Dropped counts the runs and edits past MaxRuns and MaxEdits.
	Dropped int `json:"dropped,omitempty"`
	// End is when the turn's last message was written, where the harness
	// records times: its edits were made by then (a file changed after
	// it changed since the turn).
	End time.Time `json:"end,omitzero"`
}

// Run is one command a turn ran, in the order it ran.
type Run struct {
	// Seq is the run's place among the turn's records, so runs and edits
	// can be put back in the order they happened.
	Seq     int            `json:"seq"`
	Command string         `json:"command"`
	Status  harness.Status `json:"status,omitempty"`
	Exit    *int           `json:"exit,omitempty"`
	Output  string         `json:"output,omitempty"`
}

// Edit is one edit a turn made to a file: the text it replaced and wrote,
// where the harness recorded them, and whether the edit was applied.
type Edit struct {
	Seq     int            `json:"seq"` // as Run.Seq
	File    string         `json:"file"`
	Status  harness.Status `json:"status,omitempty"`
	Old     string         `json:"old,omitempty"`
	New     string         `json:"new,omitempty"`
	Whole   bool           `json:"whole,omitempty"`
	Clipped bool           `json:"clipped,omitempty"`
}

// A turn keeps at most this many runs and edits: with harness.ClipOutput
// and ClipSpan they bound what one turn's work can weigh (a loop of
// thousands of commands in one turn keeps its first ones and a count).
const (
	MaxRuns  = 64
	MaxEdits = 32
)

// Empty reports a turn with no recorded work.
func (w Work) Empty() bool { return len(w.Runs) == 0 && len(w.Edits) == 0 && w.Dropped == 0 }

// Encode is the work as stored: JSON, or "" for none.
func (w Work) Encode() string {
	if w.Empty() {
		return ""
	}
	b, err := json.Marshal(w)
	if err != nil {
		return "" // only for values JSON cannot hold, which Work has none of
	}
	return string(b)
}

// DecodeWork reads stored work; an empty or unreadable text is no work
// (a store's work is never the reason a recall fails).
func DecodeWork(s string) Work {
	var w Work
	if s != "" {
		if json.Unmarshal([]byte(s), &w) != nil {
			return Work{}
		}
	}
	return w
}

// addRecord adds a command record's outcome, or an edit record's span or
// outcome, to the work; records without them (and reads) add nothing, so
// a harness that records no outcomes stores no work.
func (w *Work) addRecord(r harness.Record, value string, seq int) {
	switch {
	case r.Kind == harness.CommandRecord && r.Outcome.Known():
		if len(w.Runs) == MaxRuns {
			w.Dropped++
			return
		}
		w.Runs = append(w.Runs, Run{Seq: seq, Command: value, Status: r.Outcome.Status, Exit: r.Outcome.Exit, Output: r.Outcome.Output})
	case r.Kind == harness.FileRecord && r.Action == harness.Edited && (r.Span.Recorded() || r.Outcome.Status != ""):
		if len(w.Edits) == MaxEdits {
			w.Dropped++
			return
		}
		w.Edits = append(w.Edits, Edit{Seq: seq, File: value, Status: r.Outcome.Status, Old: r.Span.Old, New: r.Span.New,
			Whole: r.Span.Whole, Clipped: r.Span.Clipped})
	}
}

// Shrunk is the work within max bytes encoded, for a message with a size
// limit (a team's): the edits' texts go first, newest edit last to go, so
// outcomes and the edits' files stay; an edit that lost its texts is
// Clipped (it cannot be restored). Work within max is returned as it is.
func (w Work) Shrunk(max int) Work {
	if len(w.Encode()) <= max {
		return w
	}
	w.Edits = slices.Clone(w.Edits)
	for i := range w.Edits {
		e := &w.Edits[i]
		if e.Old != "" || e.New != "" {
			e.Old, e.New, e.Clipped = "", "", true
			if len(w.Encode()) <= max {
				return w
			}
		}
	}
	w.Runs = slices.Clone(w.Runs)
	for i := range w.Runs {
		w.Runs[i].Output = ""
		if len(w.Encode()) <= max {
			return w
		}
	}
	return w
}
