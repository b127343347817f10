package recall

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/deja-dev/deja/embed"
	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/memory/stale"
	"github.com/deja-dev/deja/memory/store"
	"github.com/deja-dev/deja/memory/store/segment"
)

// Mode chooses the lists recall ranks with.
type Mode string

// The recall modes.
const (
	// Hybrid fuses the semantic and keyword lists (the default).
	Hybrid Mode = "hybrid"
	// Semantic ranks by meaning only.
	Semantic Mode = "semantic"
	// Keyword ranks by the keyword index only.
	Keyword Mode = "keyword"
)

// ParseMode reads a mode name; the empty name is Hybrid.
func ParseMode(s string) (Mode, error) {
	switch Mode(strings.ToLower(strings.TrimSpace(s))) {
	case "", Hybrid:
		return Hybrid, nil
	case Semantic:
		return Semantic, nil
	case Keyword:
		return Keyword, nil
	}
	return "", fmt.Errorf("recall: mode %q: use hybrid, semantic or keyword", s)
}

// ErrEmpty reports a store with nothing indexed.
var ErrEmpty = errors.New("nothing is indexed yet")

// RecallOptions is one recall query.
type Options struct {
	Query string
	Mode  Mode
	// Embedder embeds the query; nil when none is available, and then
	// NoEmbedder says why (recall falls back to keywords and says so).
	Embedder   embed.Embedder
	NoEmbedder string
	Scope      Scope
	// Limit is how many results to return; 0 means 5.
	Limit int
	// Tuning overrides the ranking constants; nil keeps deja's defaults.
	// The retrieval eval (bench/eval) uses it to choose them.
	Tuning *Tuning
	// Trace, when set, receives where the recall spent its time.
	Trace *Trace
	// Now is the time a query's "last week" or "in March" counts from;
	// zero is the clock's.
	Now time.Time
	// Once says the store answers this recall and no other (a fresh
	// 'deja recall'): unless it holds the embedder's vectors already, it
	// reads them a piece at a time and keeps none, instead of loading
	// them all to keep for the next recall. The results are the same.
	Once bool
	// Commits has a result that edited files in a git repository say so
	// when a commit since touched one (one git process a project, a few
	// milliseconds); without it only modification times are read. A
	// person's or an agent's recall asks for it; a hook's, which runs
	// before every prompt, does not.
	Commits bool
	// scan makes a one-shot recall read the vectors a piece at a time
	// even where the store holds them: a warm store's collections may
	// still be being built behind it (see Warm), and a recall that used
	// them would wait for the build.
	scan bool
}

// Trace is where one recall spent its time, for benchmarks (bench/perf
// reports the vector queries' share of a recall).
type Trace struct {
	// VectorQuery is the wall time of the vector queries; for a
	// one-shot recall (Once), which queries each piece as it reads it, the
	// wall time of the whole scan.
	VectorQuery time.Duration
}

// Tuning holds the ranking constants recall uses.
type Tuning struct {
	// FusionK is reciprocal rank fusion's k.
	FusionK int
	// ExactWeight is the keyword list's weight for an exact-looking query.
	ExactWeight float64
	// Floor is the lowest similarity a semantic match may have.
	Floor float32
	// Domain is the lowest mean similarity to the documents in scope a
	// query may have for any semantic match to count; 0 means no such test.
	Domain float32
	// LongChars and LongDamp: a turn longer than LongChars characters (a
	// pasted changelog) has its fused score scaled by
	// (LongChars/length)^LongDamp; it matches many queries a little.
	LongChars int
	LongDamp  float64
	// ThinChars: a turn no longer than this whose question has almost no
	// content ("how are you?") counts by meaning only when it shares a word
	// with the query; 0 turns the test off.
	ThinChars int
	// Verbatim is the share of a query's words (of four or more) that a
	// question must hold in the query's order to rank first; 0 turns the
	// test off.
	Verbatim float64
	// SemanticWeight, SemanticRankK, Partial, When and WhenDays weigh a
	// natural-language query's lists and the time it names (see blend).
	SemanticWeight float64
	SemanticRankK  float64
	Partial        float64
	When, WhenDays float64
}

// DefaultTuning is what recall uses for an embedder.
func DefaultTuning(identity string) Tuning {
	return Tuning{FusionK: FusionK, ExactWeight: exactWeight, Floor: Floor(identity), Domain: Domain(identity),
		LongChars: longChars, LongDamp: 1, Verbatim: verbatimShare, ThinChars: thinChars,
		SemanticWeight: semanticWeight, SemanticRankK: semanticRankK, Partial: partialWeight,
		When: whenWeight, WhenDays: whenDays}
}

// Recall is the answer to a query.
type Answer struct {
	Query string
	Mode  Mode
	// RealizedMode is the mode that produced the results: the asked mode,
	// or Keyword when the semantic list was unavailable (FallbackReason
	// says why).
	RealizedMode   Mode
	FallbackReason string
	Embedder       string
	Took           time.Duration
	Results        []Result
	// MeanSimilarity is the query's mean similarity to the documents in
	// scope, which the domain test compares with Tuning.Domain; 0 when no
	// semantic list ran.
	MeanSimilarity float32
	// Note explains an empty result for people: nothing matched in any
	// list, the query has nothing to match with, or no turn mentions its
	// exact parts.
	Note string
	// NotFound are the exact parts of the query (a path, a command, an
	// identifier, quoted text) that no turn in scope mentions; when there
	// are any, there are no results: meaning alone never stands in for a
	// missing literal.
	NotFound []string
	// Respelled are the query's words that no turn holds and the store's
	// words read in their place, nearest first; the results are for the
	// query as read.
	Respelled []Respelling
}

// Result is one recalled turn.
type Result struct {
	SessionID string
	Turn      int
	// Score orders the results: the fused score in hybrid mode, the
	// similarity in semantic mode, the negated BM25 score in keyword mode;
	// a file lookup orders by the kind of record first (see byRecord).
	Score float64
	// Started is the session's start, zero when unknown.
	Started   time.Time
	History   string
	Project   string
	Line      int
	User      string
	Assistant string
	Files     []string
	Commands  []string
	// From says whose turn it is when a team folded it in: USER@MACHINE;
	// empty for this machine's own.
	From string
	// KeywordRank and SemanticRank are the turn's 1-based places in each
	// list, 0 when absent from it; Similarity is its best chunk's cosine,
	// meaningful when SemanticRank > 0. For a natural-language query in
	// hybrid mode the keyword place counts only the turns holding at
	// least half the query's words: a turn sharing fewer is ranked by
	// them but has no place.
	KeywordRank  int
	SemanticRank int
	Similarity   float32
	// Mark is the verdict someone gave the turn or its session ('deja
	// mark'), nil when none.
	Mark *Mark
	// Edited are the files the turn edited, Done when its edits were all
	// made (its last message, or the next turn's start; zero when the
	// harness records no such time), and Changed how many of the
	// ChangedOf of them that exist here changed since (by modification
	// time; ChangedOf 0: it cannot tell).
	Edited             []string
	Done               time.Time
	Changed, ChangedOf int
}

// markChanged says of each result how many of the files it edited
// changed since (by modification time, and with commits by the commits of
// its project's repository since its oldest such result: one git process
// a project). A team's turn edited another machine's files: it says
// nothing.
func markChanged(ctx context.Context, results []Result, commits bool) {
	since := map[string]time.Time{}
	for _, r := range results {
		if r.From == "" && len(r.Edited) > 0 && !r.Done.IsZero() {
			if t, ok := since[r.Project]; !ok || r.Done.Before(t) {
				since[r.Project] = r.Done
			}
		}
	}
	history := map[string][]stale.Commit{}
	if commits {
		for project, t := range since {
			history[project] = stale.Commits(ctx, project, t)
		}
	}
	for i := range results {
		r := &results[i]
		if _, ok := since[r.Project]; ok && r.From == "" {
			r.Changed, r.ChangedOf = stale.Changed(r.Project, r.Edited, r.Done, history[r.Project])
		}
	}
}

// Recall finds the past turns that best match the query.
func Recall(ctx context.Context, s *store.Store, opts Options) (*Answer, error) {
	start := time.Now()
	if opts.Mode == "" {
		opts.Mode = Hybrid
	}
	if opts.Limit <= 0 {
		opts.Limit = 5
	}
	r := &Answer{Query: opts.Query, Mode: opts.Mode, RealizedMode: opts.Mode}
	if opts.Embedder != nil {
		r.Embedder = opts.Embedder.Identity()
	}
	defer func() { r.Took = time.Since(start) }()

	turns, err := countTurns(ctx, s)
	if err != nil {
		return nil, err
	}
	if turns == 0 {
		return nil, fmt.Errorf("%w in %s: run 'deja index' to index the histories deja finds ('deja sources' lists them), or 'deja index PATH' for a history or a directory", ErrEmpty, s.Dir())
	}
	if r.Note, err = noneFrom(ctx, s, opts.Scope.From); err != nil || r.Note != "" {
		return r, err
	}
	q := parseQuery(opts.Query)
	if q, r.Respelled = respell(ctx, s, q); len(r.Respelled) > 0 {
		opts.Query = q.text
	}
	var allowed map[int64]bool
	if q.isExact() {
		q, allowed, r.NotFound, r.Note, err = literalGate(ctx, s, q, opts.Scope)
		if err != nil {
			return nil, err
		}
		if allowed != nil && len(allowed) == 0 {
			return r, nil
		}
	}

	tune := DefaultTuning(r.Embedder)
	if opts.Tuning != nil {
		tune = *opts.Tuning
	}
	// A hybrid recall needs the keyword list whatever the semantic one
	// gives (it falls back to it), so both run at once: each leaves a
	// core idle part of the time.
	var kw []keywordHit
	var kwErr error
	kwDone := make(chan struct{})
	if opts.Mode == Hybrid {
		go func() {
			defer close(kwDone)
			kw, kwErr = keywordAllowed(ctx, s, q, opts.Scope, allowed)
		}()
	} else {
		close(kwDone)
	}
	var sem []semanticHit
	if opts.Mode != Keyword {
		var reason string
		sem, r.MeanSimilarity, reason, err = semanticList(ctx, s, opts, tune, allowed)
		if err != nil {
			<-kwDone
			return nil, err
		}
		switch {
		case reason == "":
		case opts.Mode == Semantic && reason == noSignal:
			r.Note = reason
		default:
			r.RealizedMode = Keyword
			r.FallbackReason = reason
		}
	}
	<-kwDone
	if kwErr != nil {
		return nil, kwErr
	}
	kw = gateKeywords(kw, q, len(sem) > 0)
	if r.RealizedMode != Semantic && opts.Mode != Hybrid {
		if kw, err = keywordAllowed(ctx, s, q, opts.Scope, allowed); err != nil {
			return nil, err
		}
		kw = gateKeywords(kw, q, false)
	}

	var ranked []fused
	switch r.RealizedMode {
	case Semantic:
		ranked = fuse(sem, nil, false, tune, q, nil)
		for i := range ranked {
			ranked[i].score = float64(ranked[i].similarity)
		}
	case Keyword:
		ranked = fuse(nil, kw, false, tune, q, nil)
		for i := range ranked {
			ranked[i].score = -kw[i].bm25
		}
	default:
		shapes, err := shapes(ctx, s, sem, kw)
		if err != nil {
			return nil, err
		}
		if q.isExact() {
			ranked = fuse(sem, kw, true, tune, q, shapes)
			break
		}
		var when *period
		now := opts.Now
		if now.IsZero() {
			now = time.Now()
		}
		if p, ok := queryPeriod(q.text, now); ok {
			when = &p
		}
		ranked = blend(sem, kw, tune, q, shapes, when)
	}
	if ranked, err = byRecord(ctx, s, q, ranked); err != nil {
		return nil, err
	}
	if len(ranked) > opts.Limit {
		ranked = ranked[:opts.Limit]
	}
	r.Results, err = results(ctx, s, ranked)
	if err != nil {
		return nil, err
	}
	notesFirst(r.Results)
	if err := attachMarks(ctx, s, r.Results); err != nil {
		return nil, err
	}
	markChanged(ctx, r.Results, opts.Commits)
	if len(r.Results) == 0 && r.Note == "" {
		r.Note = "no past turn matches: nothing means the same above the similarity floor, and no turn holds these words"
		if r.RealizedMode == Keyword {
			r.Note = "no past turn holds these words"
		}
	}
	if err := explainScope(ctx, s, opts, r); err != nil {
		return nil, err
	}
	return r, nil
}

// keywordAllowed is the keyword list, within the allowed turns when a
// literal gate set them.
func keywordAllowed(ctx context.Context, s *store.Store, q query, sc Scope, allowed map[int64]bool) ([]keywordHit, error) {
	kw, err := keyword(ctx, s, q, sc)
	if err != nil || allowed == nil {
		return kw, err
	}
	return slices.DeleteFunc(kw, func(h keywordHit) bool { return !allowed[h.turnID] }), nil
}

// noSignal is the reason a query has no semantic list at all.
const noSignal = "the query has no words the embedder knows"

// semanticList embeds the query and ranks by meaning. A non-empty reason
// says why there is no semantic list. With an allowed set (the turns that
// mention a literal query's exact parts) it ranks those turns alone, at or
// above the floor; the domain test is moot, the literal having matched.
func semanticList(ctx context.Context, s *store.Store, opts Options, tune Tuning, allowed map[int64]bool) ([]semanticHit, float32, string, error) {
	if opts.Embedder == nil {
		reason := opts.NoEmbedder
		if reason == "" {
			reason = "no embedder is available"
		}
		return nil, 0, reason, nil
	}
	identity := opts.Embedder.Identity()
	has, err := hasVectors(ctx, s, identity)
	if err != nil {
		return nil, 0, "", err
	}
	if !has {
		other, err := otherEmbedder(ctx, s, identity)
		if err != nil {
			return nil, 0, "", err
		}
		if other != "" {
			return nil, 0, fmt.Sprintf("the store was embedded with %s, not %s: run 'deja index' to embed it with %s too, or recall with the embedder it has (DEJA_EMBED_PROVIDER)", other, identity, identity), nil
		}
		return nil, 0, fmt.Sprintf("no turn has %s vectors yet: run 'deja index'", identity), nil
	}
	vecs, err := opts.Embedder.Embed(ctx, embed.Query, []string{opts.Query})
	if err != nil {
		return nil, 0, fmt.Sprintf("embedding the query with %s failed: %v", identity, err), nil
	}
	if len(vecs) != 1 {
		return nil, 0, fmt.Sprintf("%s returned %d vectors for one query", identity, len(vecs)), nil
	}
	qvec := segment.Normalize(vecs[0])
	if qvec == nil {
		return nil, 0, noSignal, nil
	}
	scan := opts.Once && (opts.scan || !holds(s, identity))
	if allowed != nil {
		hits, err := semanticAmong(ctx, s, identity, qvec, allowed, tune.Floor, scan)
		if errors.Is(err, segment.ErrSegmentDamaged) {
			return nil, 0, err.Error(), nil
		}
		return hits, 0, "", err
	}
	hits, mean, err := semantic(ctx, s, identity, qvec, opts.Scope, tune, opts.Trace, scan)
	if errors.Is(err, segment.ErrSegmentDamaged) {
		// Keywords still answer; the next index run repairs the file.
		return nil, 0, err.Error(), nil
	}
	if err != nil {
		return nil, mean, "", err
	}
	hits, err = dropThin(ctx, s, hits, parseQuery(opts.Query), tune.ThinChars)
	return hits, mean, "", err
}

func countTurns(ctx context.Context, s *store.Store) (int, error) {
	var n int
	if err := s.Read().QueryRowContext(ctx, `SELECT count(*) FROM (SELECT 1 FROM turns LIMIT 1)`).Scan(&n); err != nil {
		return 0, fmt.Errorf("store: %w", err)
	}
	return n, nil
}

func hasVectors(ctx context.Context, s *store.Store, identity string) (bool, error) {
	var one int
	// The ledger is clustered by turn: ask it only for an embedder that
	// has indexed, so a stranger's question does not scan it.
	err := s.Read().QueryRowContext(ctx, `SELECT 1 FROM embedders WHERE identity = ?1
		AND EXISTS (SELECT 1 FROM vectors WHERE embedder = ?1)`, identity).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return err == nil, err
}

func otherEmbedder(ctx context.Context, s *store.Store, identity string) (string, error) {
	var other string
	err := s.Read().QueryRowContext(ctx, `SELECT identity FROM embedders WHERE identity != ? ORDER BY identity LIMIT 1`, identity).Scan(&other)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return other, err
}

// results reads the ranked turns' text and session from the ledger.
func results(ctx context.Context, s *store.Store, ranked []fused) ([]Result, error) {
	out := make([]Result, 0, len(ranked))
	for _, f := range ranked {
		var r Result
		var files, commands, actions string
		var started *string
		var end, next int64
		// A turn's edits were made by its last message (its work's end),
		// or else by the next turn's start.
		err := s.Read().QueryRowContext(ctx, `
			SELECT t.session_id, t.turn, t.line, t.user, t.assistant, t.files, t.commands, s.started, s.path, s.project,
				t.actions, coalesce(w.end_ns, 0),
				coalesce((SELECT n.time_ns FROM turn_rows n WHERE n.session_id = t.session_id AND n.turn > t.turn
					AND n.time_ns IS NOT NULL ORDER BY n.turn LIMIT 1), 0)
			FROM turns t JOIN sessions s ON s.id = t.session_id LEFT JOIN turn_work w ON w.turn_id = t.id WHERE t.id = ?`, f.turnID).
			Scan(&r.SessionID, &r.Turn, &r.Line, &r.User, &r.Assistant, &files, &commands, &started, &r.History, &r.Project, &actions, &end, &next)
		if errors.Is(err, sql.ErrNoRows) {
			continue // forgotten between the lists and now
		}
		if err != nil {
			return nil, fmt.Errorf("store: reading a turn: %w", err)
		}
		if started != nil {
			r.Started, _ = time.Parse(time.RFC3339, *started)
		}
		r.Files, r.Commands = store.SplitLines(files), store.SplitLines(commands)
		for i, a := range store.SplitLines(actions) {
			if a == string(harness.Edited) && i < len(r.Files) {
				r.Edited = append(r.Edited, r.Files[i])
			}
		}
		if end != 0 {
			r.Done = time.Unix(0, end).UTC()
		} else if next != 0 {
			r.Done = time.Unix(0, next).UTC()
		}
		r.From = store.FromOf(r.History)
		r.Score = f.score
		r.KeywordRank, r.SemanticRank, r.Similarity = f.keywordRank, f.semanticRank, f.similarity
		out = append(out, r)
	}
	return out, nil
}
