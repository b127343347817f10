package index

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"math"
	"os"
	"reflect"
	"sync"

	"github.com/deja-dev/deja/chunk"
	"github.com/deja-dev/deja/embed"
	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/memory/store"
	"github.com/deja-dev/deja/userfile"
	"golang.org/x/sync/semaphore"
)

// An index run reads ahead of its writer. The store takes one writer, and
// the writer's SQLite work is most of a run, so everything else moves off
// its goroutine: while it writes one history, the next is opened, read a
// window at a time, parsed, redacted and hashed by a reading stage of its
// own (readAhead), and the turns of the window being written are cut and
// embedded by a third goroutine (ledgerWriter.sessions).
//
// The stage reads what it needs of the store (the history's files row, its
// sessions and tombstones) before the writer has committed the histories
// ahead of it. A history whose rows one of those commits changed (a
// session moving between two files, a path named twice) is read again by
// the writer once its turn comes (see current), so a run writes what it
// would write reading one history after another.

// fileJob is one history as the reading stage hands it to the writer.
type fileJob struct {
	path string
	// st is the files row the stage read; full is whether the run re-reads
	// the history whole and re-embeds it.
	st   store.FileState
	full bool
	// err is why the history is skipped; missing is a known history that
	// is gone (indexer.missing); whole is the reader of a store read whole
	// (indexer.whole), with fi its FileInfo. None set, and no windows:
	// there is nothing new to read.
	err     error
	missing bool
	whole   harness.WholeReader
	fi      fs.FileInfo
	// read is whether the stage opened the history to read it.
	read bool
	// staged says the reading stage read it ahead, its windows holding
	// part of the read-ahead budget; a job the writer opened itself (see
	// current) holds none, so the stage cannot hold it up.
	staged bool

	// The rest is for a history read a window at a time, windows
	// delivering them in order and closed after the last.
	fr       harness.FileReader
	src      io.ReadSeekCloser
	marker   []byte
	stream   harness.LineStreamer
	from     int64
	ordinal  int
	lines    int
	sum      hash.Hash
	known    []store.KnownSession
	tomb     map[string]bool
	windows  chan windowJob
	incrReal bool
	// stop ends the reading of the job's windows (discard), once set;
	// stopped says discard came before it.
	mu      sync.Mutex
	stop    context.CancelFunc
	stopped bool
	// fingerprint and rewritten are set before the last window is sent:
	// the SHA-256 of the bytes before the last session, and whether the
	// history changed while it was read.
	fingerprint []byte
	rewritten   bool
	// unpromised says a piece of a history streamed held a session that
	// does not start where the reading started: no fingerprint.
	unpromised bool
	// dropped are the warnings for lines over harness.MaxLine, skipped as
	// they were read: set by openFile for a history read whole, and before
	// the last window is sent for one read a window at a time.
	dropped []string
}

// windowJob is one window of a history: its bytes, and the stage's parse
// of them, redacted, with the hashes of each session's turns.
type windowJob struct {
	// data is nil once the stage let it go (see letGo); size is how
	// many bytes it held.
	data   []byte
	size   int
	offset int64
	// before is, for a piece of a history streamed (see streamWindow),
	// how many bytes from offset the pieces before it were read from.
	before int64
	last   bool
	// ordinal and lines are the first session ordinal the window's parse
	// gives out and the lines before the window, for parsing it again.
	ordinal, lines int
	// hist is the parse, with the IDs the stage reserved: the file's
	// known sessions and the sessions of the windows before. redacted
	// counts the secrets its redaction removed.
	hist     *harness.History
	redacted int
	// held is what the window holds of the read-ahead budget, given back
	// once it is written (or dropped).
	held int64
	sigs map[*harness.Session]turnSigs
	// made holds, for each session the file did not hold before, the
	// parts the stage cut it into and embedded (see cutSession).
	made map[*harness.Session][]sessionPart
	err  error
}

// streamAbove is how many bytes a history read a window of whole
// sessions at a time (aider's) may hold past where its reading starts
// before it is streamed instead, when its harness can (LineStreamer): a
// window holds a session whole, and one aider session of 300 MB took
// deja index to 635 MB (bench/bounds' aider/ input).
const streamAbove = 64 << 20

// readAheadBytes bounds the windows read and not yet written. Histories
// differ in size, and a stage kept one window ahead leaves the writer
// waiting while it reads a large one after small ones it could have read
// meanwhile: indexing bench/perf's 100k-turn histories in one process
// took 26.7-31.3 s one window ahead and 14.7-15.5 s with 8 MB ahead (two
// runs each, interleaved), for 145-146 MB of peak memory against 92-94.
const readAheadBytes = 8 << 20

// readAhead runs the reading stage over the run's histories on a goroutine
// of its own and returns the jobs in order. The stage stays at most
// readAheadBytes of windows ahead of the writer (one window whatever its
// size), so memory follows that, not the run. It stops when ctx ends.
func (ix *indexer) readAhead(ctx context.Context, paths []string) <-chan *fileJob {
	jobs := make(chan *fileJob, 256)
	ix.ahead = semaphore.NewWeighted(readAheadBytes)
	// The stage's embedder, nil once a call failed: the rest of the run
	// stores turns only, as the writer does once it learns of it.
	emb := ix.emb
	go func() {
		defer close(jobs)
		// The files rows as the run found them, read at once: only a
		// commit of the same path changes a row, and current catches a
		// path named twice.
		known, err := ix.s.FileStates(ctx)
		if err != nil {
			known = nil
		}
		for _, path := range paths {
			if ctx.Err() != nil {
				return
			}
			job := ix.openFile(ctx, path, known)
			job.staged = true
			select {
			case jobs <- job:
			case <-ctx.Done():
				if job.src != nil {
					job.src.Close()
				}
				return
			}
			if job.windows != nil {
				emb = ix.readWindows(ctx, job, emb)
			}
		}
	}()
	return jobs
}

// openFile does for one history what comes before its transaction: reads
// its files row (from known, when set: the rows the run started with),
// looks at the file, chooses its harness, opens it, checks the part read
// before against its fingerprint, and reads its known sessions and
// tombstones. A history to read is left open, its windows
// channel made; readWindows fills it.
func (ix *indexer) openFile(ctx context.Context, path string, known map[string]store.FileState) *fileJob {
	job := &fileJob{path: path}
	st, ok := known[ix.s.RowPath(path)]
	if known == nil {
		var err error
		if st, err = ix.s.FileState(ctx, path); err != nil {
			job.err = err
			return job
		}
	} else if !ok {
		st = store.FileState{}
	}
	job.st = st
	job.full = ix.opts.Full || st.Full
	fi, err := os.Stat(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) && st.Known {
			job.missing = true
			return job
		}
		job.err = fmt.Errorf("%s: %v, skipped", path, unwrapPath(err))
		return job
	}
	if !fi.IsDir() && !fi.Mode().IsRegular() {
		// Opening a FIFO would wait for a writer for ever.
		job.err = fmt.Errorf("%s: is a %s, not a regular file, skipped (point deja at the history file itself)", path, userfile.Kind(fi.Mode()))
		return job
	}
	reader, err := ix.reader(path, st, fi)
	if err != nil || reader == nil {
		job.err = err
		return job
	}
	// A store read whole is read every run: its writes land in a WAL or in
	// files below it, so its own size and time do not show them, and its
	// sessions' markers keep the re-read cheap.
	if whole, ok := reader.(harness.WholeReader); ok {
		job.whole, job.fi = whole, fi
		return job
	}
	if fi.IsDir() {
		job.err = fmt.Errorf("%s: is a directory, skipped (name the history files in it, or the directory on the command line)", path)
		return job
	}
	mtime := fi.ModTime().UnixNano()
	if st.Known && !job.full && fi.Size() == st.Size && mtime == st.Mtime {
		return job
	}
	fr, ok := reader.(harness.FileReader)
	if !ok {
		job.err = fmt.Errorf("%s: harness %s reads no files, skipped", path, reader.Name())
		return job
	}
	o, err := ix.source(path, fr)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			// Deleted since the Stat: the same as deleted before it.
			if st.Known {
				job.missing = true
				return job
			}
			job.err = fmt.Errorf("%s: %v, skipped", path, unwrapPath(err))
			return job
		}
		job.err = err
		return job
	}
	job.read, job.fi, job.fr, job.src, job.marker, job.stream, job.dropped = true, fi, fr, o.src, o.marker, o.stream, o.dropped

	// Re-read from the start of the last known session when the bytes
	// before it are the ones already read; any other change (the file
	// shrank, was rewritten or replaced, another harness reads it) re-reads
	// it whole, and so does a --full not yet finished.
	sum := sha256.New()
	lines := &lineCounter{}
	job.from, job.ordinal = 0, 1
	if !job.full && st.Known && st.Harness == fr.Name() && fi.Size() >= st.Size {
		if n, err := io.CopyN(io.MultiWriter(sum, lines), o.src, st.LastOffset); err == nil && n == st.LastOffset {
			job.incrReal = bytes.Equal(sum.Sum(nil), st.Fingerprint)
		}
	}
	if job.incrReal {
		job.from, job.ordinal, job.lines = st.LastOffset, st.LastOrdinal, lines.n
	} else {
		sum.Reset()
	}
	job.sum = sum
	if ls, ok := fr.(harness.LineStreamer); ok && job.marker != nil && fi.Size()-job.from > cmp.Or(ix.opts.streamAbove, streamAbove) {
		// One session may be the whole of it, and a window holds whole
		// sessions: parse it as its lines are read, in pieces.
		job.stream = ls
	}
	if _, err := o.src.Seek(job.from, io.SeekStart); err != nil {
		job.fail(fmt.Errorf("%s: %v, skipped", path, unwrapPath(err)))
		return job
	}
	if job.known, err = ix.s.FileSessions(ctx, path); err != nil {
		job.fail(err)
		return job
	}
	if job.tomb, err = ix.s.Tombstones(ctx, path); err != nil {
		job.fail(err)
		return job
	}
	job.windows = make(chan windowJob, 1)
	return job
}

// unchanged says the stage found the history as the store knows it:
// nothing to read, nothing to report.
func (job *fileJob) unchanged() bool {
	return job.err == nil && !job.missing && job.whole == nil && job.windows == nil
}

// readAll reads the job's windows on a goroutine of its own, for a job
// the writer opened itself, embedding with the writer's embedder.
func (ix *indexer) readAll(ctx context.Context, job *fileJob) {
	if job.windows != nil {
		emb := ix.emb
		go ix.readWindows(ctx, job, emb)
	}
}

// fail ends an opened job with err.
func (job *fileJob) fail(err error) {
	job.src.Close()
	job.src, job.err = nil, err
}

// readWindows reads the job's history a window of whole sessions at a
// time, parses, redacts and hashes each, cuts and embeds with emb the
// sessions the file did not hold before, and sends the window to the
// writer. It closes the history and the channel when done, or when ctx
// ends, and returns the embedder for what follows (nil once a call
// failed).
func (ix *indexer) readWindows(ctx context.Context, job *fileJob, emb embed.Embedder) embed.Embedder {
	if job.stream != nil {
		return ix.streamWindow(ctx, job, emb)
	}
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	job.setStop(stop)
	defer close(job.windows)
	// Not job.src.Close(): a history read whole lets its bytes go before
	// the reading ends (see letGo).
	defer func() { job.src.Close() }()
	size := windowSize
	if job.marker == nil {
		// Sessions cannot be told apart in the bytes: one window.
		size = math.MaxInt
	}
	if ix.opts.window > 0 {
		size = ix.opts.window
	}
	// A history read a window at a time is bounded as it is read here;
	// one read whole was bounded by harness.ReadAll.
	var bound *harness.LineBound
	var win *windowReader
	held, whole := job.src.(heldBytes)
	switch {
	case whole && job.marker == nil && ix.opts.window == 0:
		// Read whole already: its one window is those bytes, not a copy.
		win = heldWindow(held.data[job.from:], job.from, job.sum)
	case job.marker != nil:
		bound = harness.NewLineBound(job.src, ix.opts.limits, job.lines)
		win = newWindowReader(bound, job.from, job.fi.Size()-job.from, job.sum, size, job.marker)
	default:
		win = newWindowReader(bufio.NewReaderSize(job.src, 64<<10), job.from, job.fi.Size()-job.from, job.sum, size, job.marker)
	}
	held = heldBytes{}
	// The IDs a window's parse must not give out: the file's known
	// sessions that the writer keeps (see reservedIDs), and those parsed
	// from the windows before.
	reserved := reservedIDs(job.known, job.incrReal, job.from)
	parsed := map[string]bool{}
	ordinal, lastOffset := job.ordinal, job.from
	lines := &lineCounter{n: job.lines}
	for last := false; !last; {
		if ctx.Err() != nil {
			return emb
		}
		data, offset, isLast, err := win.next()
		last = isLast
		wj := windowJob{data: data, size: len(data), offset: offset, last: last, ordinal: ordinal, lines: lines.n}
		if err != nil {
			wj.err = fmt.Errorf("reading: %v", unwrapPath(err))
			send(ctx, job.windows, wj)
			return emb
		}
		wj.hist = harness.ParseFile(job.fr, data, harness.ParseOptions{
			Path:         job.path,
			Offset:       offset,
			FirstOrdinal: ordinal,
			Reserved:     func(id string) bool { return reserved[id] || parsed[id] },
			Location:     ix.opts.Location,
		})
		shiftLines(wj.hist.Sessions, lines.n)
		ix.s.NotePathSecret(job.path, wj.hist.Sessions)
		wj.redacted = redactSessions(wj.hist.Sessions, job.tomb)
		for _, sess := range wj.hist.Sessions {
			parsed[sess.ID] = true
			lastOffset, ordinal = sess.Offset, sess.Ordinal+1
		}
		hashed := len(data)
		if last {
			// The fingerprint covers the bytes before the last session.
			hashed = int(max(0, lastOffset-offset))
		}
		lines.Write(data)
		win.done(data, hashed)
		if whole && letGo(job, len(data)) {
			// Nothing reads these bytes again: let them go before the
			// window's turns are cut and embedded.
			wj.data, data = nil, nil
			job.src = heldBytes{Reader: bytes.NewReader(nil)}
		}
		wj.sigs, wj.made, emb = ix.cutWindow(ctx, job, wj.hist.Sessions, wj.size, emb)
		if last {
			if bound != nil {
				job.dropped = append(job.dropped, bound.Warnings()...)
			}
			job.fingerprint = win.fingerprint()
			if after, err := os.Stat(job.path); err == nil && after.ModTime().UnixNano() != job.fi.ModTime().UnixNano() {
				job.rewritten = true
			}
		}
		if !ix.sendWindow(ctx, job, wj) {
			return emb
		}
	}
	return emb
}

// streamWindow is readWindows for a history its harness parses as its
// lines are read (harness.LineStreamer): its bytes are read a chunk of
// lines at a time and let go as they are parsed, so that memory follows
// what the parse keeps, not the file. A parse that hands over finished
// turns (harness.PieceParser) sends them a window of about windowSize
// bytes at a time, each a piece of its sessions, so that memory follows
// the piece, not the session; the last window holds the rest and every
// session's final header. Its sessions all start where the reading
// starts, so the fingerprint covers the bytes before it, hashed when the
// history was opened.
func (ix *indexer) streamWindow(ctx context.Context, job *fileJob, emb embed.Embedder) embed.Embedder {
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	job.setStop(stop)
	defer close(job.windows)
	defer job.src.Close()
	reserved := reservedIDs(job.known, job.incrReal, job.from)
	prescanned, err := prescan(job.stream, job.src, job.from, ix.opts.limits)
	if err != nil {
		send(ctx, job.windows, windowJob{offset: job.from, last: true, err: err})
		return emb
	}
	bound := harness.NewLineBound(job.src, ix.opts.limits, job.lines)
	piece := windowSize
	if ix.opts.window > 0 {
		piece = ix.opts.window
	}
	// before is how many bytes the pieces sent so far were read from.
	var before int64
	// window readies a piece, or the last window, for the writer, and
	// sends it; false when the run ended first.
	window := func(hist *harness.History, size int64, last bool) bool {
		wj := windowJob{offset: job.from, before: before, size: int(size), last: last, ordinal: job.ordinal, lines: job.lines, hist: hist}
		before += size
		ix.s.NotePathSecret(job.path, hist.Sessions)
		wj.redacted = redactSessions(hist.Sessions, job.tomb)
		for _, sess := range hist.Sessions {
			// Not the harness's promise: no fingerprint, so the next
			// run reads the history whole.
			job.unpromised = job.unpromised || (job.marker == nil && sess.Offset != job.from)
		}
		wj.sigs, wj.made, emb = ix.cutWindow(ctx, job, hist.Sessions, wj.size, emb)
		if last {
			if job.marker != nil {
				// Sessions start anywhere: the fingerprint covers the
				// bytes before the last, as a window's does (read
				// again, not held); none when a line was dropped, as
				// offsets past it are not the file's.
				job.unpromised = len(bound.Warnings()) > 0 || hashTo(job, hist.Sessions) != nil
			}
			job.fingerprint = job.sum.Sum(nil)
			if job.unpromised {
				// Matches no bytes: the next run reads it whole.
				job.fingerprint = []byte{}
			}
			job.dropped = append(job.dropped, bound.Warnings()...)
			if after, err := os.Stat(job.path); err == nil && after.ModTime().UnixNano() != job.fi.ModTime().UnixNano() {
				job.rewritten = true
			}
		}
		return ix.sendWindow(ctx, job, wj)
	}
	hist, size, err := harness.ParsePieces(job.stream, bound, ix.opts.chunk, piece, job.lines, harness.ParseOptions{
		Path:         job.path,
		Offset:       job.from,
		FirstOrdinal: job.ordinal,
		Reserved:     func(id string) bool { return reserved[id] },
		Location:     ix.opts.Location,
		Prescanned:   prescanned,
	}, func(h *harness.History, size int64) error {
		if !window(h, size, false) {
			return cmp.Or(ctx.Err(), errors.New("the reading stage stopped"))
		}
		return nil
	})
	if err != nil {
		if ctx.Err() == nil {
			send(ctx, job.windows, windowJob{offset: job.from, before: before, last: true, err: fmt.Errorf("reading: %v", unwrapPath(err))})
		}
		return emb
	}
	window(hist, size-before, true)
	return emb
}

// hashTo adds to the job's fingerprint the bytes from where its reading
// started to the start of the last of sessions (the history's sessions,
// in order), read again from the file.
func hashTo(job *fileJob, sessions []harness.Session) error {
	to := job.from
	if n := len(sessions); n > 0 {
		to = sessions[n-1].Offset
	}
	if _, err := job.src.Seek(job.from, io.SeekStart); err != nil {
		return err
	}
	_, err := io.CopyN(job.sum, job.src, to-job.from)
	return err
}

// sendWindow sends a window to the writer, holding its share of the
// read-ahead budget when the stage read it ahead; false when the run
// ended first.
func (ix *indexer) sendWindow(ctx context.Context, job *fileJob, wj windowJob) bool {
	if job.staged {
		if wj.held = min(int64(wj.size), readAheadBytes); ix.ahead.Acquire(ctx, wj.held) != nil {
			return false
		}
	}
	if !send(ctx, job.windows, wj) {
		ix.giveBack(wj)
		return false
	}
	return true
}

// prescan runs a harness.Prescanner's look at a history streamed, from
// offset from, and rewinds it there for the parse; other streamers need
// none.
func prescan(ls harness.LineStreamer, src io.ReadSeeker, from int64, lim harness.Limits) (string, error) {
	pre, ok := ls.(harness.Prescanner)
	if !ok {
		return "", nil
	}
	// Through the bound the parse reads through, so that it holds no line
	// the parse would not, and numbers the lines as the parse does.
	found, err := pre.Prescan(harness.NewLineBound(src, lim, 0))
	if err == nil {
		_, err = src.Seek(from, io.SeekStart)
	}
	if err != nil {
		return "", fmt.Errorf("reading: %v", unwrapPath(err))
	}
	return found, nil
}

// parseAgain parses a window again with opts, for the writer (see
// reserveTakenIDs): from its bytes, or from the file for a history
// streamed. A history streamed that changed since is marked rewritten,
// so the next run looks at it again.
func (ix *indexer) parseAgain(job *fileJob, wj windowJob, opts harness.ParseOptions) (*harness.History, error) {
	if job.stream == nil {
		if wj.data == nil {
			// letGo keeps the bytes of a history with known sessions.
			return nil, errors.New("its bytes were let go before they were parsed again")
		}
		hist := harness.ParseFile(job.fr, wj.data, opts)
		// The parser numbers lines from the start of what it reads.
		shiftLines(hist.Sessions, wj.lines)
		return hist, nil
	}
	o, err := ix.source(job.path, job.fr)
	if err != nil {
		return nil, err
	}
	defer o.src.Close()
	stream := o.stream
	if stream == nil && o.marker != nil {
		// Read a window at a time when small, streamed when large.
		stream = job.stream
	}
	if stream == nil {
		return nil, errors.New("it changed while it was read")
	}
	if _, err := o.src.Seek(job.from, io.SeekStart); err != nil {
		return nil, fmt.Errorf("reading: %v", unwrapPath(err))
	}
	if opts.Prescanned, err = prescan(stream, o.src, job.from, ix.opts.limits); err != nil {
		return nil, err
	}
	hist, _, err := harness.ParseStream(stream, harness.NewLineBound(o.src, ix.opts.limits, wj.lines), ix.opts.chunk, wj.lines, opts)
	if err != nil {
		return nil, fmt.Errorf("reading: %v", unwrapPath(err))
	}
	if after, err := os.Stat(job.path); err != nil || after.Size() != job.fi.Size() || after.ModTime().UnixNano() != job.fi.ModTime().UnixNano() {
		job.rewritten = true
	}
	return hist, nil
}

// letGo says whether the reading stage may let a history's bytes, read
// whole, go once it has parsed them: when they are more than a window
// (smaller ones are not worth it), and when the file holds no known
// session, so that the writer, which parses a window again only when a
// parsed session takes a known session's ID (reserveTakenIDs), never
// needs them. A 250 MB transcript kept them through cutting and
// embedding, and the garbage collector let the heap grow to twice that.
func letGo(job *fileJob, size int) bool {
	return size > windowSize && len(job.known) == 0
}

// giveBack returns what a window held of the read-ahead budget.
func (ix *indexer) giveBack(wj windowJob) {
	if ix.ahead != nil && wj.held > 0 {
		ix.ahead.Release(wj.held)
	}
}

// cutWindow gives a window's sessions that are not forgotten their
// project and the indexes and hashes of their turns, and cuts those the
// file did not hold before into the parts the writer writes, embedded with
// emb (see cutSession): all their turns are new, whatever the store holds.
// A window of more than windowSize bytes is not cut: its parts, vectors
// and all, would be held until the writer took the window, and the writer
// cuts it as it writes, a part at a time (ledgerWriter.prepare); a 1 GB
// transcript streamed peaked at 787 MB with its parts cut here.
func (ix *indexer) cutWindow(ctx context.Context, job *fileJob, sessions []harness.Session, size int, emb embed.Embedder) (map[*harness.Session]turnSigs, map[*harness.Session][]sessionPart, embed.Embedder) {
	if size > windowSize {
		return turnHashes(sessions, job.path, inFolder(job.fr), job.tomb, nil), nil, emb
	}
	known := make(map[string]bool, len(job.known))
	for _, ks := range job.known {
		known[ks.Id] = true
	}
	made := map[*harness.Session][]sessionPart{}
	sigs := turnHashes(sessions, job.path, inFolder(job.fr), job.tomb, func(sess *harness.Session, turns []chunk.Turn, sig turnSigs) {
		if known[sess.ID] || ctx.Err() != nil {
			return
		}
		var parts []sessionPart
		pl := &sessionPlan{sess: sess, hashes: sig.hash}
		emb, _ = cutSession(ctx, pl, turns, emb, job.full, ix.opts.Budget, func(p sessionPart) bool {
			parts = append(parts, p)
			return true
		})
		made[sess] = parts
	})
	return sigs, made, emb
}

// send sends wj on ch unless ctx ends first.
func send(ctx context.Context, ch chan<- windowJob, wj windowJob) bool {
	select {
	case ch <- wj:
		return true
	case <-ctx.Done():
		return false
	}
}

// reservedIDs are the IDs of a file's known sessions that new sessions
// must not take: those before the re-read part keep their IDs. A session
// that left the file is not reserved: when the file changes back (a
// git-tracked history across a branch switch), the session parsed under
// its ID takes it back if it continues it, and only one that does not is
// given another ID (reserveTakenIDs), so each switch no longer stored the
// returning sessions once more.
func reservedIDs(known []store.KnownSession, incremental bool, from int64) map[string]bool {
	reserved := map[string]bool{}
	for _, ks := range known {
		if incremental && ks.Offset < from {
			reserved[ks.Id] = true
		}
	}
	return reserved
}

// turnHashes gives each session not forgotten its project (its history's
// folder when folder says its reader keeps it there) and returns its
// turns' indexes and hashes; then, when set, hands each session its turns
// and their hashes before they are dropped.
func turnHashes(sessions []harness.Session, path string, folder bool, tomb map[string]bool, then func(*harness.Session, []chunk.Turn, turnSigs)) map[*harness.Session]turnSigs {
	out := make(map[*harness.Session]turnSigs, len(sessions))
	for i := range sessions {
		sess := &sessions[i]
		if tomb[sess.ID] {
			continue
		}
		*sess = withProject(*sess, path, folder)
		turns := chunk.Turns(*sess)
		sig := sigsOf(turns)
		out[sess] = sig
		if then != nil {
			then(sess, turns, sig)
		}
	}
	return out
}

// discard drops what the writer did not take of a job: the reading of its
// windows stops, and those sent are dropped; the stage then closes its
// file and moves on.
func (ix *indexer) discard(job *fileJob) {
	if job.windows == nil {
		return
	}
	job.mu.Lock()
	job.stopped = true
	if job.stop != nil {
		job.stop()
	}
	job.mu.Unlock()
	for wj := range job.windows {
		ix.giveBack(wj)
	}
}

// setStop records how discard stops the reading of the windows, and
// stops it at once when discard came first.
func (job *fileJob) setStop(stop context.CancelFunc) {
	job.mu.Lock()
	defer job.mu.Unlock()
	job.stop = stop
	if job.stopped {
		stop()
	}
}

// current reports whether the rows the stage read for the job are still
// the store's: a history committed since may have moved a session into or
// out of this one's file, or been this very path.
func (ix *indexer) current(ctx context.Context, job *fileJob) (bool, error) {
	st, err := ix.s.FileState(ctx, job.path)
	if err != nil {
		return false, err
	}
	if !reflect.DeepEqual(st, job.st) {
		return false, nil
	}
	if job.windows == nil {
		return true, nil
	}
	known, err := ix.s.FileSessions(ctx, job.path)
	if err != nil {
		return false, err
	}
	tomb, err := ix.s.Tombstones(ctx, job.path)
	if err != nil {
		return false, err
	}
	return reflect.DeepEqual(known, job.known) && reflect.DeepEqual(tomb, job.tomb), nil
}
