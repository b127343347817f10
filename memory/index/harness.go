package index

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"path/filepath"
	"strconv"

	"github.com/deja-dev/deja/aider"
	"github.com/deja-dev/deja/chunk"
	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/internal/lazyre"
	"github.com/deja-dev/deja/memory/store"
	"github.com/deja-dev/deja/userfile"
)

// sniffBytes is how much of a new file the harnesses see to claim it.
const sniffBytes = 8192

// reader returns the harness that reads the file: the one that read it
// before, else the first that claims it. A file whose harness is switched
// off is left alone: nil, nil.
func (ix *indexer) reader(path string, st store.FileState, fi fs.FileInfo) (harness.Reader, error) {
	reg := ix.opts.Harnesses
	if reg == nil {
		reg = harness.Registry{aider.Reader{}}
	}
	if st.Known && st.Harness != "" {
		return reg.Lookup(st.Harness), nil
	}
	var head []byte
	if !fi.IsDir() {
		// A directory has no head; a harness that reads one (OpenCode's
		// storage tree) looks at it by its path.
		var err error
		if head, err = readHead(path); err != nil {
			return nil, fmt.Errorf("%s: %v, skipped", path, unwrapPath(err))
		}
	}
	h, err := reg.Detect(path, head)
	if err != nil {
		return nil, fmt.Errorf("%s: %v, skipped", path, err)
	}
	return h, nil
}

// readHead returns the file's first sniffBytes.
func readHead(path string) ([]byte, error) {
	// Not os.Open: the path may have become a FIFO since it was looked at.
	f, _, err := userfile.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	head := make([]byte, sniffBytes)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return head[:n], nil
}

// withProject gives a session of a harness that records no working
// directory but keeps its history in the project (aider: inFolder, see
// harness.FolderProject) the directory of its history as its project,
// redacted as redactSession redacts a project the harness gives. Any
// other reader's session that names no project keeps none (a Continue
// session of no workspace: its folder is ~/.continue/sessions), as does a
// prompt of a prompt history whose line names none: the history's
// directory is the agent's, not the user's.
func withProject(s harness.Session, path string, inFolder bool) harness.Session {
	if inFolder && s.Project == "" && !s.PromptOnly {
		s.Project, _ = store.RedactPath(filepath.Dir(path))
	}
	return s
}

// maxFileWarnings bounds the lines one history adds to a report's
// problems, and to its warnings: a history with thousands of bad lines of
// as many kinds is told in a few lines, the rest counted ('deja parse'
// lists them all).
const maxFileWarnings = 10

// fileNotes gathers what reading one history left out, each once: the
// sessions refused for their IDs (harness.CheckIDs) and the lines dropped
// as too long (harness.LineBound) are problems; what its parses skipped or
// inferred (harness.History.Warnings: a line nested too deep, a record of
// unknown type) are warnings.
type fileNotes struct {
	problems, warnings onceList
}

// parsed adds a parse's warnings and refusals; lines is how many lines of
// the file came before the bytes it parsed, which its warnings count from.
func (n *fileNotes) parsed(hist *harness.History, lines int) {
	for _, w := range hist.Warnings {
		n.warnings.add(shiftWarning(w, lines))
	}
	n.problems.add(hist.Refused...)
}

// report adds the history's notes to the report, each line naming path.
func (n *fileNotes) report(rep *Report, path string) {
	n.problems.report(&rep.Problems, path)
	n.warnings.report(&rep.Warnings, path)
}

// onceList is a list that keeps each line once.
type onceList struct {
	list []string
	seen map[string]bool
}

func (l *onceList) add(ws ...string) {
	for _, w := range ws {
		if l.seen[w] {
			continue
		}
		if l.seen == nil {
			l.seen = map[string]bool{}
		}
		l.seen[w] = true
		l.list = append(l.list, w)
	}
}

// report appends the lines to dst, path first, at most maxFileWarnings of
// them, and how many more there were.
func (l *onceList) report(dst *[]string, path string) {
	for i, w := range l.list {
		if i == maxFileWarnings {
			*dst = append(*dst, fmt.Sprintf("%s: %d more, not shown ('deja parse' lists them)", path, len(l.list)-i))
			return
		}
		*dst = append(*dst, path+": "+w)
	}
}

// warningLine finds the line a reader's warning names: "… (first at line
// 7), skipped" (harness.Warnings) or "line 7: …" (Gemini CLI's).
var warningLine = lazyre.New(`^(line )(\d+)(: )|( \(first at line )(\d+)(\), skipped)$`)

// shiftWarning makes the line a warning names count from the start of the
// file when the parse began n lines into it (see shiftLines).
func shiftWarning(w string, n int) string {
	if n == 0 {
		return w
	}
	return warningLine.ReplaceAllStringFunc(w, func(m string) string {
		sub := warningLine.FindStringSubmatch(m)
		pre, num, post := sub[1], sub[2], sub[3]
		if pre == "" {
			pre, num, post = sub[4], sub[5], sub[6]
		}
		line, err := strconv.Atoi(num)
		if err != nil {
			return m
		}
		return pre + strconv.Itoa(line+n) + post
	})
}

// whole indexes a store a WholeReader reads whole: sessions whose marker
// changed are stored again (with full, every session), sessions that left
// it stay, as they stay when they leave a file.
func (ix *indexer) whole(ctx context.Context, path string, wr harness.WholeReader, fi fs.FileInfo, full bool) error {
	markers, err := ix.s.SessionMarkers(ctx, path)
	if err != nil {
		return err
	}
	opts := harness.ParseOptions{Path: path, Location: ix.opts.Location}
	if !full {
		// A session whose marker the ledger holds is skipped below: the
		// reader need not read its messages.
		opts.Unchanged = func(id, marker string) bool {
			m, ok := markers[id]
			return ok && m.Present && marker != "" && m.Marker == marker
		}
	}
	hist, err := harness.ReadStore(ctx, wr, path, opts)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return ix.missing(ctx, path, full)
		}
		return fmt.Errorf("%s: %v, skipped", path, err)
	}
	ix.rep.Read++
	var notes fileNotes
	notes.parsed(hist, 0)
	defer notes.report(ix.rep, path)
	tomb, err := ix.s.Tombstones(ctx, path)
	if err != nil {
		return err
	}
	var plans []*sessionPlan
	parsed := map[string]bool{}
	redacted := 0
	for i := range hist.Sessions {
		sess := &hist.Sessions[i]
		parsed[sess.ID] = true
		if tomb[sess.ID] {
			continue
		}
		m, ok := markers[sess.ID]
		if ok && m.Marker == sess.Marker && m.Present && sess.Marker != "" && !full {
			continue
		}
		// A store's folder is its agent's (~/.hermes, kiro-cli's data
		// folder), never the user's project: a session its agent kept
		// no project for keeps none, rather than send 'deja resume' and
		// --project there.
		redacted += redactSession(sess)
		sig := sigsOf(chunk.Turns(*sess))
		st := store.LedgerSpan{Last: math.MinInt}
		if ok {
			if st, err = ix.s.LedgerTurns(ctx, sess.ID, sig.index); err != nil {
				return err
			}
		}
		plans = append(plans, newPlan(sess, sig, st, full))
	}
	ix.rep.Redacted += redacted
	if plans, err = ix.heldPrompts(ctx, wr.Name(), plans); err != nil {
		return err
	}
	empty := sha256.Sum256(nil)
	next := store.FileState{Size: fi.Size(), Mtime: fi.ModTime().UnixNano(), LastOrdinal: 1, Fingerprint: empty[:], Harness: wr.Name()}
	changedSessions, newTurns := 0, 0
	err = ix.s.WriteLedger(ctx, ix.stmts, func(lt *store.LedgerTx) error {
		changedSessions, newTurns = 0, 0
		ix.toEmbed, ix.embedded = 0, 0
		for _, pl := range plans {
			ix.toEmbed += pl.pending
		}
		w := ix.newLedgerWriter(lt, full, wr.Name())
		var kept []string
		for id, m := range markers {
			if parsed[id] {
				continue
			}
			kept = append(kept, id)
			if m.Present {
				if err := lt.MarkAbsent(id); err != nil {
					return err
				}
			}
		}
		err := w.sessions(plans, func(pl *sessionPlan) error {
			return w.upsertSession(path, wr.Name(), *pl.sess)
		}, func(pl *sessionPlan, n int) {
			if n > 0 {
				changedSessions++
				newTurns += n
			}
			pl.sess.Messages, pl.sess.Records = nil, nil
		})
		if err != nil {
			return err
		}
		if full {
			if err := w.reembed(kept); err != nil {
				return err
			}
		}
		next.Full = full && w.embedFailed()
		if err := w.finish(); err != nil {
			return err
		}
		return w.putFileState(path, next)
	})
	if err != nil {
		// Drops of stored prompts that did not commit.
		ix.prompts = nil
		return fmt.Errorf("%s: %w", path, err)
	}
	ix.rep.Sessions += changedSessions
	ix.rep.NewTurns += newTurns
	return nil
}

// inFolder says whether a file reader's sessions that name no project are
// given their history's folder (see withProject).
func inFolder(fr harness.FileReader) bool {
	_, ok := fr.(harness.FolderProject)
	return ok
}
