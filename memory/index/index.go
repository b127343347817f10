package index

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/deja-dev/deja/chunk"
	"github.com/deja-dev/deja/embed"
	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/memory/store"
	"github.com/deja-dev/deja/userfile"
	"golang.org/x/sync/semaphore"
)

// IndexOptions say what Index reads and how it embeds.
type Options struct {
	// Paths are history files, absolute and resolved (userfile.ResolvePath).
	Paths []string
	// Harnesses read the histories: a file the store knows goes to the
	// harness that read it before, a new one to the first harness that
	// claims it (harness.Registry.Detect). Nil means aider alone.
	Harnesses harness.Registry
	// Embedder embeds new turns; nil stores them without vectors, to be
	// filled by a later run.
	Embedder embed.Embedder
	// Budget is the most characters of one chunk (chunk.Texts).
	Budget int
	// Full re-reads the files of Paths whole and re-embeds their turns;
	// other histories in the store are left as they are.
	Full bool
	// Location is the zone of session header times; nil means time.Local.
	Location *time.Location
	// Lock tunes the wait for another writer.
	Lock store.LockOptions
	// Progress, when set, is told how far indexing got.
	Progress func(Progress)

	// open replaces os.Open when set, so a test can delete a file between
	// its Stat and its read.
	open func(string) (*os.File, error)
	// window replaces windowSize when set, so a test can parse a history
	// a session at a time.
	window int
	// streamAbove replaces streamAbove when set, so a test can stream a
	// small history that is read a window of sessions at a time.
	streamAbove int64
	// chunk replaces the bytes of lines a streamed history's parse is
	// handed at a time (harness.ParseStream), so a test can cut it small.
	chunk int
	// flushEvery replaces flushEvery when set, so a test can flush a
	// transaction's vectors a few at a time.
	flushEvery int
	// limits replace the bounds on what a history hands its reader
	// (harness.MaxLine, MaxDecoded), so a test stays small.
	limits harness.Limits
	// beforeWrite, when set, is called before each history is written, so
	// a test can hold the writer back while the reading stage reads ahead.
	beforeWrite func(path string)
}

// Progress is how far an Index run got, and what it is doing now.
type Progress struct {
	// Phase is what the run does now: "reading" a history (the bytes up to
	// FileBytes of FileSize are read), "parsing" a window of it,
	// "embedding" its new turns (Done of Total), "writing" them, or
	// "filling": embedding turns an earlier run left without vectors (Done
	// of Total, after every file).
	Phase string
	// File is the history the phase works on ("" while filling), FileIndex
	// its place among the run's Files (0-based); FilesDone counts the
	// histories finished.
	File                        string
	FileIndex, Files, FilesDone int
	FileBytes, FileSize         int64
	// Done and Total count the phase's turns (embedding, filling).
	Done, Total int
	// Turns is how many new turns the run has written so far.
	Turns int
}

// progress tells opts.Progress where the run is, when it listens.
func (ix *indexer) progress(p Progress) {
	if ix.opts.Progress == nil {
		return
	}
	p.File, p.FileIndex, p.Files, p.FilesDone = ix.file0, ix.fileIndex, len(ix.opts.Paths), ix.filesDone
	if p.Phase == "filling" {
		p.File = ""
	}
	p.Turns = ix.rep.NewTurns + ix.turnsInFile
	ix.opts.Progress(p)
}

// IndexReport sums up an Index run.
type Report struct {
	// Files is how many histories were looked at, Read how many had new
	// bytes and were parsed, Missing how many known ones are gone (their
	// sessions stay).
	Files, Read, Missing int
	// Sessions is how many sessions had new or changed turns.
	Sessions int
	// NewTurns is how many turns were written; Embedded how many turns got
	// vectors, old turns that lacked them included.
	NewTurns, Embedded int
	// Skipped is how many files could not be indexed; Problems says why,
	// one line each, with what to do.
	Skipped  int
	Problems []string
	// Warnings are what the histories' parses skipped or inferred (a line
	// nested too deep, a record of unknown type), a few lines a history.
	Warnings []string
	// Lacking is how many turns still lack vectors of the embedder.
	Lacking int
	// Redacted is how many secrets were removed from what was read.
	Redacted int
	Took     time.Duration
	// rereads counts the histories the writer read again because a commit
	// changed what the reading stage had read of them (tests).
	rereads int
}

// Index brings the store up to date with the given histories: only bytes
// after the start of each file's last known session are parsed, only new or
// changed turns are embedded, and each file's changes are committed in one
// transaction. It holds the store's writer lock while it runs. A full disk
// ends the run with an error wrapping ErrDiskFull: every file after it would
// fail the same way. The report's problems and warnings are redacted, as
// they may quote what was read.
func Index(ctx context.Context, s *store.Store, opts Options) (Report, error) {
	rep, err := index(ctx, s, opts)
	rep.Problems = store.RedactLines(rep.Problems)
	rep.Warnings = store.RedactLines(rep.Warnings)
	return rep, err
}

// index is Index before its report is redacted.
func index(ctx context.Context, s *store.Store, opts Options) (Report, error) {
	// What this store keeps loaded for recall reflects the write.
	defer s.Invalidate()
	opts.Paths = promptHistoriesLast(opts.Paths)
	start := time.Now()
	var rep Report
	lock, err := store.AcquireLock(ctx, s.Dir(), opts.Lock)
	if err != nil {
		return rep, err
	}
	defer lock.Unlock()
	if err := s.LoadPathKey(ctx); err != nil {
		return rep, err
	}
	lost, err := s.RepairSegments(ctx)
	if err != nil {
		return rep, err
	}
	if lost > 0 {
		rep.Problems = append(rep.Problems, fmt.Sprintf("a vector file was damaged: %d turns lost their vectors and are embedded again", lost))
	}

	emb := opts.Embedder
	if emb != nil {
		if err := s.RegisterEmbedder(ctx, emb); err != nil {
			return rep, err
		}
	}
	if err := s.Track(ctx, opts.Paths, opts.Full); err != nil {
		return rep, err
	}
	stmts, err := s.PrepareIndex(ctx)
	if err != nil {
		return rep, err
	}
	defer stmts.Close()
	ix := &indexer{s: s, opts: opts, emb: emb, rep: &rep, stmts: stmts}
	// The reading stage ends with the run, and lets go of what it holds.
	stageCtx, stopStage := context.WithCancel(ctx)
	jobs := ix.readAhead(stageCtx, opts.Paths)
	defer func() {
		for job := range jobs {
			ix.discard(job)
		}
	}()
	defer stopStage()
	i := 0
	for job := range jobs {
		if err := ctx.Err(); err != nil {
			ix.discard(job)
			return rep, err
		}
		ix.file0, ix.fileIndex, ix.turnsInFile = job.path, i, 0
		i++
		ix.progress(Progress{Phase: "reading"})
		rep.Files++
		if opts.beforeWrite != nil {
			opts.beforeWrite(job.path)
		}
		if err := ix.file(ctx, job); err != nil {
			if ctx.Err() != nil {
				return rep, ctx.Err()
			}
			if errors.Is(err, store.ErrDiskFull) {
				s.GiveBackLog(ctx)
				return rep, err
			}
			rep.Skipped++
			rep.Problems = append(rep.Problems, err.Error())
		}
		ix.filesDone++
		ix.turnsInFile = 0
	}
	// The stage stops handing jobs over when the run is cancelled.
	if err := ctx.Err(); err != nil {
		return rep, err
	}
	if ix.emb != nil {
		if err := ix.fill(ctx); err != nil {
			if ctx.Err() != nil {
				return rep, ctx.Err()
			}
			if errors.Is(err, store.ErrDiskFull) {
				s.GiveBackLog(ctx)
				return rep, err
			}
			rep.Problems = append(rep.Problems, err.Error())
		}
	}
	if emb != nil {
		n, err := s.Lacking(ctx, emb.Identity())
		if err != nil {
			return rep, err
		}
		rep.Lacking = n
	}
	s.CompactKeywords(ctx, rep.NewTurns)
	s.ReleaseFree(ctx)
	rep.Took = time.Since(start)
	return rep, nil
}

type indexer struct {
	s *store.Store
	// ahead bounds what the reading stage holds ahead of the writer.
	ahead *semaphore.Weighted
	opts  Options
	emb   embed.Embedder
	rep   *Report
	stmts *store.IndexStatements
	// toEmbed and embedded count the current file's turns to embed, for
	// Progress; toEmbed grows as the file's windows are read.
	toEmbed, embedded int
	// file0 is the history being indexed, fileIndex its place in the run,
	// filesDone the histories finished and turnsInFile the new turns its
	// transaction has written so far (counted in rep once it commits).
	file0                             string
	fileIndex, filesDone, turnsInFile int
	fileSize                          int64
	// readTo is where the window being written ends: the embedding of
	// its turns moves the progress towards it.
	readTo int64
	// prompts are the prompt-only sessions the store holds, once a
	// session written needs them (see dropPrompts); nil after a write
	// that failed.
	prompts *promptSet
}

// newTurn is a turn to write, with its vectors once embedded.
type newTurn struct {
	session string
	// project is the session's project, which its vectors are filed under.
	project string
	turn    chunk.Turn
	hash    string
	texts   []string
	vectors [][]float32
	// keep is the stored row of a turn that is re-embedded unchanged;
	// packed is the question and answer of one to insert.
	keep   int64
	packed store.PackedTurn
}

// embedded is what one call of the embedder did for a batch of turns.
type embedded struct {
	turns    int
	refusals []store.Refusal
	// err is the call's failure: the batch and the turns after it are
	// written without vectors.
	err error
}

// embedTurns embeds the turns' texts with emb (nil: none) in calls of at
// most embedBatch texts and sets each turn's vectors; after a call fails
// the rest keep none. It touches neither the store nor the run's report,
// so it runs beside the writer; noteEmbedded records what it did.
func embedTurns(ctx context.Context, emb embed.Embedder, turns []*newTurn) []embedded {
	if emb == nil {
		return nil
	}
	var out []embedded
	for len(turns) > 0 {
		var batch []*newTurn
		var texts []string
		for len(turns) > 0 && (len(texts) == 0 || len(texts)+len(turns[0].texts) <= store.EmbedBatch) {
			batch = append(batch, turns[0])
			texts = append(texts, turns[0].texts...)
			turns = turns[1:]
		}
		refusals, err := embedNewTurns(ctx, emb, batch, texts)
		out = append(out, embedded{turns: len(batch), refusals: refusals, err: err})
		if err != nil {
			return out
		}
	}
	return out
}

// failed reports whether one of the calls failed.
func failed(calls []embedded) bool {
	for _, e := range calls {
		if e.err != nil {
			return true
		}
	}
	return false
}

// noteEmbedded records what embedTurns did: refusals in tx, the count and
// the progress. On a failure the problem is reported once and the rest of
// the run stores turns only; the next run fills the gap.
func (ix *indexer) noteEmbedded(ctx context.Context, lt *store.LedgerTx, calls []embedded) error {
	for _, e := range calls {
		if e.err != nil {
			ix.rep.Problems = append(ix.rep.Problems, fmt.Sprintf("embedding with %s failed: %v; turns are stored without vectors and the next 'deja index' embeds them", ix.emb.Identity(), e.err))
			ix.emb = nil
			return nil
		}
		if err := ix.recordRefused(ctx, lt, e.refusals); err != nil {
			return err
		}
		ix.rep.Embedded += e.turns
		ix.embedded += e.turns
		at := ix.readTo
		if ix.toEmbed > 0 {
			at = int64(float64(ix.readTo) * float64(ix.embedded) / float64(ix.toEmbed))
		}
		ix.progress(Progress{Phase: "embedding", Done: ix.embedded, Total: ix.toEmbed, FileBytes: at, FileSize: ix.fileSize})
	}
	return nil
}

// file writes one history the reading stage read. A job whose rows a
// commit since changed is read again here (see current).
func (ix *indexer) file(ctx context.Context, job *fileJob) error {
	if job.unchanged() {
		// Nothing to write: a commit since cannot have made it stale, as
		// only a write of this very path changes its files row, and that
		// write leaves the row the stage found.
		return nil
	}
	ok, err := ix.current(ctx, job)
	if err != nil {
		ix.discard(job)
		return err
	}
	if !ok {
		ix.discard(job)
		ix.rep.rereads++
		job = ix.openFile(ctx, job.path, nil)
		ix.readAll(ctx, job)
	}
	err = ix.read(ctx, job)
	ix.discard(job)
	if err != nil && job.st.Size == -1 && !errors.Is(err, store.ErrDiskFull) && ctx.Err() == nil {
		ix.s.DropUntracked(ctx, job.path)
	}
	return err
}

// read writes one history: in one transaction, the sessions of each of
// its windows as the reading stage delivers them, and what the next run
// needs to know of it.
func (ix *indexer) read(ctx context.Context, job *fileJob) error {
	path, full := job.path, job.full
	switch {
	case job.missing:
		return ix.missing(ctx, path, full)
	case job.err != nil:
		if job.read {
			ix.rep.Read++
		}
		return job.err
	case job.whole != nil:
		return ix.whole(ctx, path, job.whole, job.fi, full)
	case job.windows == nil:
		return nil
	}
	ix.rep.Read++
	fi, fr, known, tomb := job.fi, job.fr, job.known, job.tomb
	reserved := reservedIDs(known, job.incrReal, job.from)
	next := store.FileState{Size: fi.Size(), Mtime: fi.ModTime().UnixNano(), LastOffset: job.from, LastOrdinal: job.ordinal, Harness: fr.Name()}
	// parsed holds, for each session read, what the end of the file needs
	// of it: its ID, offset and header, without its text.
	var parsed []harness.Session
	parsedID := map[string]bool{}
	displaced := map[string]bool{}
	// A history streamed in pieces (see streamWindow) brings a session in
	// several windows: pieceRead holds the turns read of each in the
	// windows before, which its prune keeps, and whole says a window was
	// parsed again whole (see parseAgain), so that the pieces after it
	// are written already.
	pieceRead := map[string][]int{}
	whole := false
	changed := map[string]bool{}
	changedSessions, newTurns := 0, 0
	var notes fileNotes
	err := ix.s.WriteLedger(ctx, ix.stmts, func(lt *store.LedgerTx) error {
		changedSessions, newTurns = 0, 0
		clear(changed)
		clear(pieceRead)
		whole = false
		notes = fileNotes{}
		ix.toEmbed, ix.embedded, ix.turnsInFile, ix.fileSize = 0, 0, 0, fi.Size()
		w := ix.newLedgerWriter(lt, full, fr.Name())
		// inStep: the stage's parses gave out the IDs this one would, until
		// a window must be parsed again here.
		inStep := true
		// held is the window being written, whose share of the read-ahead
		// budget goes back once it is.
		var held windowJob
		defer func() { ix.giveBack(held) }()
		for last := false; !last; {
			wj, err := nextWindow(ctx, job)
			held = wj
			if err != nil {
				return err
			}
			offset := wj.offset
			last = wj.last
			at := offset + wj.before
			ix.progress(Progress{Phase: "parsing", FileBytes: at, FileSize: fi.Size()})
			ix.readTo = at + int64(wj.size)
			if whole && !last {
				// A piece of what was parsed again whole and written.
				ix.giveBack(held)
				held = windowJob{}
				continue
			}
			var hist *harness.History
			var plans []*sessionPlan
			wasWhole := whole
			switch {
			case whole:
				hist = &harness.History{}
			case inStep:
				hist = wj.hist
				ix.rep.Redacted += wj.redacted
				if plans, err = ix.planHashed(ctx, hist.Sessions, wj.sigs, wj.made, tomb, known, full); err != nil {
					return err
				}
				for _, pl := range plans {
					if before, ok := pieceRead[pl.sess.ID]; ok {
						// A later piece of a session a window before
						// continued or was given its own ID: it goes on.
						pl.continues, pl.readBefore = true, before
					}
				}
				// Only a harness that names sessions by their place
				// (aider, read a window at a time) gives another ID to a
				// reserved one; another's parse again would name them
				// alike, and hold a streamed session whole to do it.
				inStep = job.marker == nil || !reserveTakenIDs(plans, reserved, displaced)
			}
			// A parsed session that takes a known session's ID without
			// continuing it (see continues) gets another: the known one's
			// ID is reserved, and the window parsed again, until every
			// taken ID names the session it named before; each pass
			// reserves one more known ID, so this ends.
			for !inStep && !wasWhole {
				hist, err = ix.parseAgain(job, wj, harness.ParseOptions{
					Path:         path,
					Offset:       offset,
					FirstOrdinal: wj.ordinal,
					Reserved:     func(id string) bool { return reserved[id] || parsedID[id] },
					Location:     ix.opts.Location,
				})
				if err != nil {
					return err
				}
				if plans, err = ix.plan(ctx, path, inFolder(job.fr), hist.Sessions, tomb, known, full); err != nil {
					return err
				}
				if job.stream != nil {
					// Parsed again whole: the turns of the pieces before
					// are among these, and those after are too.
					whole = true
					for _, pl := range plans {
						pl.readBefore = pieceRead[pl.sess.ID]
					}
				}
				if !reserveTakenIDs(plans, reserved, displaced) {
					break
				}
			}
			if plans, err = ix.heldPrompts(ctx, fr.Name(), plans); err != nil {
				return err
			}
			notes.parsed(hist, wj.lines)
			for _, pl := range plans {
				ix.toEmbed += pl.pending
			}
			ix.progress(Progress{Phase: "writing", FileBytes: at, FileSize: fi.Size()})
			err = w.sessions(plans, func(pl *sessionPlan) error {
				return w.upsertSession(path, fr.Name(), *pl.sess)
			}, func(pl *sessionPlan, n int) {
				pieceRead[pl.sess.ID] = pl.readAll
				if n > 0 {
					if !changed[pl.sess.ID] {
						changed[pl.sess.ID] = true
						changedSessions++
					}
					newTurns += n
					ix.turnsInFile = newTurns
				}
				// Written: let the session's text go before the next
				// one's turns are built.
				pl.sess.Messages, pl.sess.Records = nil, nil
			})
			if err != nil {
				return err
			}
			for _, sess := range hist.Sessions {
				if !parsedID[sess.ID] {
					parsed = append(parsed, harness.Session{ID: sess.ID, Offset: sess.Offset, Header: sess.Header})
				}
				parsedID[sess.ID] = true
				next.LastOffset, next.LastOrdinal = sess.Offset, sess.Ordinal
			}
			ix.progress(Progress{Phase: "writing", FileBytes: at + int64(wj.size), FileSize: fi.Size()})
			ix.giveBack(held)
			held = windowJob{}
		}
		next.Fingerprint = job.fingerprint
		if job.rewritten {
			// Written while we read: keep a time that makes the next run look again.
			next.Mtime = 0
		}
		var kept []string
		for _, ks := range known {
			if parsedID[ks.Id] {
				continue
			}
			kept = append(kept, ks.Id)
			if !ks.Present || (job.incrReal && ks.Offset < job.from) {
				continue
			}
			if job.incrReal && !displaced[ks.Id] && rereadAs(ks, parsed) {
				// Read from bytes read again now: the re-read session
				// replaces it (a header that was half written, say).
				if err := w.deleteSession(ks.Id); err != nil {
					return err
				}
				kept = kept[:len(kept)-1]
				continue
			}
			// It left the file: keep it, as a deleted transcript is kept.
			if err := w.lt.MarkAbsent(ks.Id); err != nil {
				return err
			}
		}
		if full {
			// Sessions the file no longer holds are re-embedded too.
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
	notes.problems.add(job.dropped...)
	notes.report(ix.rep, path)
	return nil
}

// nextWindow is the job's next window from the reading stage.
func nextWindow(ctx context.Context, job *fileJob) (windowJob, error) {
	select {
	case wj, ok := <-job.windows:
		if !ok {
			// The stage stops early only when the run ends.
			return windowJob{}, cmp.Or(ctx.Err(), errors.New("the reading stage stopped"))
		}
		return wj, wj.err
	case <-ctx.Done():
		return windowJob{}, ctx.Err()
	}
}

// sessionStarter is implemented by a FileReader whose sessions each begin
// at a line its parser takes as a session start whatever came before
// (aider's header): such a history is read a window of whole sessions at a
// time (see windowReader). A harness.LineStreamer's history is parsed as
// its lines are read (see streamWindow); other histories are read whole.
type sessionStarter interface {
	SessionStart() []byte
}

// opened is a history opened for reading by source.
type opened struct {
	src io.ReadSeekCloser
	// marker is the session start its windows end at; stream, when set,
	// parses it as its lines are read; neither: it was read whole, and
	// dropped are the warnings for the lines that dropped.
	marker  []byte
	stream  harness.LineStreamer
	dropped []string
}

// source opens a history for reading from its first byte, after checking
// that its harness reads it, and says how it is read: a window at a time,
// streamed, or whole. A history read whole is read through
// harness.ReadAll's bounds, decoded first when it must be.
func (ix *indexer) source(path string, fr harness.FileReader) (opened, error) {
	// Not os.Open: the path may have become a FIFO since it was looked at.
	open := func(p string) (*os.File, error) {
		f, _, err := userfile.Open(p)
		return f, err
	}
	if ix.opts.open != nil {
		open = ix.opts.open
	}
	f, err := open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return opened{}, err
		}
		return opened{}, fmt.Errorf("%s: %v, skipped (check its permissions)", path, unwrapPath(err))
	}
	starter, windowed := fr.(sessionStarter)
	streamer, streams := fr.(harness.LineStreamer)
	dec, decodes := fr.(harness.Decoder)
	// A Decoder's history streams when its harness says, from its first
	// bytes, that it is not encoded (Codex's .jsonl rollouts); else, or
	// when those bytes do not tell, it is read whole and judged whole.
	windowed = windowed && !decodes
	if windowed || streams {
		head := make([]byte, sniffBytes)
		n, err := io.ReadFull(f, head)
		if err == nil || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			err = fr.Sniff(path, head[:n])
			if decodes && (err != nil || !streamer.Streams(path, head[:n])) {
				err, streams = nil, false
			}
		}
		if err == nil {
			_, err = f.Seek(0, io.SeekStart)
		}
		if err != nil {
			f.Close()
			return opened{}, fmt.Errorf("%s: %v, skipped", path, unwrapPath(err))
		}
		switch {
		case windowed:
			return opened{src: f, marker: starter.SessionStart()}, nil
		case streams && streamer.Streams(path, head[:n]):
			return opened{src: f, stream: streamer}, nil
		}
	}
	data, dropped, err := harness.ReadAll(path, f, dec, ix.opts.limits)
	f.Close()
	if err != nil {
		return opened{}, fmt.Errorf("%s: %v, skipped", path, unwrapPath(err))
	}
	if err := fr.Sniff(path, data); err != nil {
		return opened{}, fmt.Errorf("%s: %v, skipped", path, err)
	}
	return opened{src: heldBytes{bytes.NewReader(data), data}, dropped: dropped}, nil
}

// heldBytes is a history read whole, as a ReadSeeker with a Close that
// does nothing, and its bytes, which its one window is cut from rather
// than copied (see readWindows).
type heldBytes struct {
	*bytes.Reader
	data []byte
}

func (heldBytes) Close() error { return nil }

// lineCounter counts the lines written to it.
type lineCounter struct{ n int }

func (c *lineCounter) Write(b []byte) (int, error) {
	c.n += bytes.Count(b, []byte("\n"))
	return len(b), nil
}

// shiftLines adds n to the lines of the sessions' messages and records.
func shiftLines(sessions []harness.Session, n int) {
	if n == 0 {
		return
	}
	for i := range sessions {
		for j := range sessions[i].Messages {
			sessions[i].Messages[j].Line += n
		}
		for j := range sessions[i].Records {
			sessions[i].Records[j].Line += n
		}
	}
}

// missing handles a known history that is gone. Its sessions stay; a --full
// re-embeds them from the store and is then done with the history.
func (ix *indexer) missing(ctx context.Context, path string, full bool) error {
	ix.rep.Missing++
	if !full {
		return nil
	}
	known, err := ix.s.FileSessions(ctx, path)
	if err != nil {
		return err
	}
	var ids []string
	for _, ks := range known {
		ids = append(ids, ks.Id)
	}
	err = ix.s.WriteLedger(ctx, ix.stmts, func(lt *store.LedgerTx) error {
		w := ix.newLedgerWriter(lt, true, "")
		if err := w.reembed(ids); err != nil {
			return err
		}
		if err := w.finish(); err != nil {
			return err
		}
		if w.embedFailed() {
			return nil
		}
		return lt.FullDone(path)
	})
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// putFileState stores what the next index needs to know of a history.
func (w *ledgerWriter) putFileState(path string, st store.FileState) error {
	return w.lt.PutFileState(path, st)
}

// unwrapPath drops the path an *os.PathError repeats.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
