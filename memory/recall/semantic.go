package recall

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/deja-dev/deja/memory/store"
	"github.com/deja-dev/deja/memory/store/segment"
	chromem "github.com/philippgille/chromem-go"
)

// collectionKey names one project's loaded collections of one embedder,
// never mixed with another embedder's.
type collectionKey struct {
	embedder, project string
}

// partition is what a scope filters a project's chunks by besides time
// and session: each value has its own collection, so a filter picks
// collections instead of testing every document's metadata (measured at
// 100k turns: a metadata filter made chromem's query 1.5-2.5 times slower).
type partition struct {
	harness  string
	subagent bool
	origin   string
}

// collection is one project's chunks of one partition, loaded for
// recall: their indices in the embedder's vectorSet, which say each
// chunk's turn and session, and their vectors as unit vectors, which a
// query scans exactly (see scan). It replaced a chromem-go collection on
// this path: chromem-go's exhaustive query passes every document of the
// collection through a channel, a mutex and a locked heap before the dot
// product, which made it three times the cost of a flat scan of the same
// vectors at 100k turns (docs/recall.md); the one-shot recall still puts
// the pieces it reads into chromem-go collections (queryPiece).
type collection struct {
	project   string
	part      partition
	dimension int
	// sum is the sum of the collection's unit vectors: a query's mean
	// similarity to the collection is its dot product with sum over the
	// count, one dot product instead of a pass over the documents.
	sum []float64
	set *segment.VectorSet
	// members are the set indices of the collection's documents, and
	// vecs their vectors, of unit length (unitVector).
	members []int32
	vecs    [][]float32
}

// semanticHit is one turn's best chunk for a query.
type semanticHit struct {
	turnID     int64
	similarity float32
}

// semanticDepth is how many chunks a query asks each project for; the
// chunks of one long turn can crowd the top, so ask for more than needed.
const semanticDepth = 100

// chunkHit is one chunk's similarity, by its index in the vectorSet.
type chunkHit struct {
	index      int32
	similarity float32
}

// semantic returns the turns most similar to the query vector, best first,
// at or above floor, within scope, and the query's mean similarity to the
// documents in scope. A query whose mean is below domain is about something
// else (see Domain) and has no semantic matches. Each project in scope
// offers its semanticDepth most similar chunks that pass the scope's
// filters (all of them under a time scope, which is tested after).
//
// A recall that scans (see RecallOptions.Once) reads the segment in
// pieces instead (see semanticScan).
func semantic(ctx context.Context, s *store.Store, identity string, qvec []float32, sc Scope, tune Tuning, trace *Trace, scan bool) ([]semanticHit, float32, error) {
	if scan {
		return semanticScan(ctx, s, identity, qvec, sc, tune, trace)
	}
	domain := tune.Domain
	cols, err := collections(ctx, s, identity, sc)
	if err != nil {
		return nil, 0, err
	}
	mean := shrunkMean(sums(cols), qvec, domainPrior(identity))
	if domain > 0 && mean < domain {
		return nil, mean, nil
	}
	timed := sc.timed()
	var asked []*collection
	for _, c := range cols {
		if c.dimension == 0 {
			// A project none of whose turns has a vector (text the
			// embedder has no words for) has nothing to offer, and must
			// not fail the query for the others.
			continue
		}
		if c.dimension != len(qvec) {
			return nil, mean, dimensionError(identity, c.dimension, len(qvec))
		}
		if !sc.keeps(c.part) {
			continue
		}
		if sc.Session != "" {
			// A session's chunks are few: a collection of them alone.
			if c = c.only(sc.Session); c == nil {
				continue
			}
		}
		asked = append(asked, c)
	}
	started := time.Now()
	found := queryAll(asked, qvec, timed)
	if trace != nil {
		trace.VectorQuery += time.Since(started)
	}
	byProject := map[string][]chunkHit{}
	var set *segment.VectorSet
	for i, c := range asked {
		byProject[c.project] = append(byProject[c.project], found[i]...)
		set = c.set
	}
	return bestTurns(byProject, set, sc, tune.Floor), mean, nil
}

// bestTurns ranks the turns of the chunks each project offered: per
// project the semanticDepth best of its partitions' chunks (the best of a
// union are among the best of each part; all of them under a time scope,
// which is tested here), at or above floor, each turn at its best chunk.
func bestTurns(byProject map[string][]chunkHit, set *segment.VectorSet, sc Scope, floor float32) []semanticHit {
	timed := sc.timed()
	best := map[int64]float32{}
	for _, hits := range byProject {
		sortChunks(hits)
		if !timed && len(hits) > semanticDepth {
			hits = hits[:semanticDepth]
		}
		for _, h := range hits {
			if h.similarity < floor {
				break
			}
			if timed && !inTime(set.Session(int(h.index)), sc) {
				continue
			}
			id := set.Keys[h.index].TurnID
			if sim, ok := best[id]; !ok || h.similarity > sim {
				best[id] = h.similarity
			}
		}
	}
	hits := make([]semanticHit, 0, len(best))
	for id, sim := range best {
		hits = append(hits, semanticHit{turnID: id, similarity: sim})
	}
	sortHits(hits)
	return hits
}

// sortChunks orders chunks most similar first; the index breaks ties, so
// which of equally similar chunks make a project's semanticDepth does not
// depend on the order the collections answered in.
func sortChunks(h []chunkHit) {
	slices.SortFunc(h, func(a, b chunkHit) int {
		return cmp.Or(cmp.Compare(b.similarity, a.similarity), cmp.Compare(a.index, b.index))
	})
}

// dimensionError is the error of a query whose vector is not as long as
// the stored ones.
func dimensionError(identity string, stored, query int) error {
	return fmt.Errorf("store: %s vectors are %d-d but the query is %d-d: run 'deja index --full'", identity, stored, query)
}

// keeps reports whether the scope keeps a partition's chunks.
func (sc Scope) keeps(pt partition) bool {
	return (sc.Harness == "" || pt.harness == sc.Harness) &&
		!(sc.excludesSubagents() && pt.subagent) &&
		(sc.origin() == "" || pt.origin == sc.origin())
}

// queryAll asks each collection for its semanticDepth most similar chunks
// (all of them when timed), on as many goroutines as there are CPUs: most
// projects are small, and one scan of a small collection does not keep
// two cores busy.
func queryAll(cols []*collection, qvec []float32, timed bool) [][]chunkHit {
	qvec = unitVector(qvec)
	out := make([][]chunkHit, len(cols))
	onEveryCore(len(cols), func(i int) { out[i] = cols[i].query(qvec, timed) })
	return out
}

// onEveryCore calls do(i) for every i below n, on as many goroutines as
// there are CPUs, and returns when all have returned. One call runs on
// the caller's goroutine: a warm recall often has one part of work.
func onEveryCore(n int, do func(i int)) {
	if n == 1 {
		do(0)
		return
	}
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				do(i)
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}

// query returns the collection's semanticDepth chunks most similar to
// qvec, a unit vector (all of them when timed). A cut between two equal
// similarities (a project holding the same text twice) takes twice as
// many, until the cut falls between two different ones: the chunks
// returned are then all those above the cut, whichever order they were
// met in, and sortChunks orders ties.
func (c *collection) query(qvec []float32, timed bool) []chunkHit {
	count := len(c.members)
	n := count
	if !timed {
		n = min(n, semanticDepth)
	}
	if n == 0 {
		return nil
	}
	for {
		// One more than the cut, to see whether it falls between equals.
		hits := c.scan(qvec, min(count, n+1))
		if len(hits) <= n || hits[n].similarity < hits[n-1].similarity {
			return hits[:min(n, len(hits))]
		}
		n = min(count, 2*n)
	}
}

// scan returns the k chunks of the collection most similar to qvec, most
// similar first: the dot product of unit vectors, summed in the order
// chromem-go sums it, so a similarity is the one it gave.
func (c *collection) scan(qvec []float32, k int) []chunkHit {
	if k >= len(c.vecs) {
		hits := make([]chunkHit, len(c.vecs))
		for i, v := range c.vecs {
			hits[i] = chunkHit{index: c.members[i], similarity: dot(qvec, v)}
		}
		sortChunks(hits)
		return hits
	}
	// A min-heap of the k best so far: hits[0] is the least of them.
	hits := make([]chunkHit, 0, k)
	less := func(a, b chunkHit) bool {
		return a.similarity < b.similarity || a.similarity == b.similarity && a.index > b.index
	}
	down := func(i int) {
		for {
			l := 2*i + 1
			if l >= len(hits) {
				return
			}
			if r := l + 1; r < len(hits) && less(hits[r], hits[l]) {
				l = r
			}
			if !less(hits[l], hits[i]) {
				return
			}
			hits[i], hits[l] = hits[l], hits[i]
			i = l
		}
	}
	for i, v := range c.vecs {
		h := chunkHit{index: c.members[i], similarity: dot(qvec, v)}
		switch {
		case len(hits) < k:
			hits = append(hits, h)
			for j := len(hits) - 1; j > 0; {
				up := (j - 1) / 2
				if !less(hits[j], hits[up]) {
					break
				}
				hits[j], hits[up] = hits[up], hits[j]
				j = up
			}
		case less(hits[0], h):
			hits[0] = h
			down(0)
		}
	}
	sortChunks(hits)
	return hits
}

// queryChromem is query for a chromem-go collection, as the one-shot
// recall builds them (queryPiece). Which of equally similar chunks
// chromem keeps at its cut depends on the order its goroutines met them,
// so a cut between two equal similarities asks again for twice as many.
func queryChromem(ctx context.Context, col *chromem.Collection, qvec []float32, timed bool) ([]chunkHit, error) {
	count := col.Count()
	n := count
	if !timed {
		n = min(n, semanticDepth)
	}
	if n == 0 {
		return nil, nil
	}
	var res []chromem.Result
	for {
		var err error
		res, err = col.QueryEmbedding(ctx, qvec, min(count, n+1), nil, nil)
		if err != nil {
			return nil, fmt.Errorf("store: vector query: %w", err)
		}
		if len(res) <= n || res[n].Similarity < res[n-1].Similarity {
			res = res[:min(n, len(res))]
			break
		}
		n = min(count, 2*n)
	}
	hits := make([]chunkHit, len(res))
	for i, r := range res {
		idx, _ := strconv.Atoi(r.ID)
		hits[i] = chunkHit{index: int32(idx), similarity: r.Similarity}
	}
	return hits, nil
}

// only returns a new collection of c's chunks of one session, nil when it
// has none.
func (c *collection) only(session string) *collection {
	var members []int32
	for _, i := range c.members {
		if c.set.Session(int(i)).Id == session {
			members = append(members, i)
		}
	}
	if len(members) == 0 {
		return nil
	}
	return newCollection(c.set, c.project, c.part, members)
}

// vectorSum is the sum of a collection's unit vectors and their count.
type vectorSum struct {
	sum []float64
	n   int
}

// sums are the collections' vector sums, in their order.
func sums(cols []*collection) []vectorSum {
	out := make([]vectorSum, len(cols))
	for i, c := range cols {
		out[i] = vectorSum{c.sum, len(c.members)}
	}
	return out
}

// meanSimilarity is the query's mean cosine similarity to every document of
// the collections whose sums these are (1 when they are empty, so no query
// is refused for it). A session or time scope still averages over its
// whole project.
func meanSimilarity(sums []vectorSum, qvec []float32) float32 {
	var dot float64
	n := 0
	for _, c := range sums {
		if len(c.sum) != len(qvec) {
			continue // the dimension check in semantic reports it
		}
		for i, x := range qvec {
			dot += float64(x) * c.sum[i]
		}
		n += c.n
	}
	if n == 0 {
		return 1
	}
	return float32(dot / float64(n))
}

// shrunkMean is the query's mean similarity to the documents in scope,
// drawn towards its similarity to prior (a typical store's centroid) as if
// the store held domainPseudoCount more documents like the prior's: the
// mean of a store of two turns says little about what the store is about,
// and the domain test must not turn a paraphrase away, or let an
// off-topic query through, because the store is small.
func shrunkMean(sums []vectorSum, qvec, prior []float32) float32 {
	mean := meanSimilarity(sums, qvec)
	if len(prior) != len(qvec) {
		return mean
	}
	n := 0
	for _, c := range sums {
		if len(c.sum) == len(qvec) {
			n += c.n
		}
	}
	if n == 0 {
		mean = 0
	}
	return (float32(n)*mean + domainPseudoCount*dot(qvec, prior)) / float32(n+domainPseudoCount)
}

func inTime(m *segment.SessionMeta, sc Scope) bool {
	if sc.Since.IsZero() && sc.Until.IsZero() {
		return true
	}
	if !m.HasStart {
		return false
	}
	return (sc.Since.IsZero() || m.StartedNS >= sc.Since.UnixNano()) && (sc.Until.IsZero() || m.StartedNS < sc.Until.UnixNano())
}

func sortHits(h []semanticHit) {
	// Highest similarity first; turn ID breaks ties so runs are repeatable.
	sort.Slice(h, func(i, j int) bool {
		if h[i].similarity != h[j].similarity {
			return h[i].similarity > h[j].similarity
		}
		return h[i].turnID < h[j].turnID
	})
}

// collections returns the loaded collections of the embedder's projects in
// scope, every partition of each, building from the embedder's vectorSet
// those not loaded yet. A warm store (a long-running process) keeps them;
// they are dropped when an index run changes the store (see Invalidate).
func collections(ctx context.Context, s *store.Store, identity string, sc Scope) ([]*collection, error) {
	ev, err := loadEmbedderVectors(ctx, s, identity)
	if err != nil {
		return nil, err
	}
	projects, missing := inScope(s, ev, identity, sc)
	if len(missing) > 0 {
		rc(s).building.Lock()
		defer rc(s).building.Unlock()
		projects, missing = inScope(s, ev, identity, sc)
	}
	// A cold load builds the projects' collections on every core.
	if len(missing) > 0 {
		rc(s).loads.Add(1)
	}
	loaded := make([][]*collection, len(missing))
	onEveryCore(len(missing), func(i int) { loaded[i] = ev.load(missing[i]) })
	rc(s).mu.Lock()
	defer rc(s).mu.Unlock()
	for i, p := range missing {
		rc(s).warm[collectionKey{identity, p}] = loaded[i]
	}
	var out []*collection
	for _, p := range projects {
		out = append(out, rc(s).warm[collectionKey{identity, p}]...)
	}
	return out, nil
}

// inScope returns the embedder's projects in scope and those of them
// whose collections are not loaded.
func inScope(s *store.Store, ev *embedderVectors, identity string, sc Scope) (projects, missing []string) {
	rc(s).mu.Lock()
	defer rc(s).mu.Unlock()
	for _, p := range ev.projects {
		if sc.matchesProject(p) {
			projects = append(projects, p)
			if _, ok := rc(s).warm[collectionKey{identity, p}]; !ok {
				missing = append(missing, p)
			}
		}
	}
	return projects, missing
}

// holds reports whether the store has read the embedder's vectors and
// keeps them (a long-running process, or a store that recalled before).
func holds(s *store.Store, identity string) bool {
	rc(s).mu.Lock()
	defer rc(s).mu.Unlock()
	return rc(s).sets[identity] != nil
}

// Preload reads the embedder's vectors and builds every project's
// collections, then reads every turn's facts (turnFacts) and the keyword
// index's vocabulary (PreloadVocabulary), so that the recalls of a
// long-running process find them loaded; a recall that
// arrives meanwhile waits for the same load of the vectors. A store with
// no vectors of the embedder has no vectors to load.
func Preload(ctx context.Context, s *store.Store, identity string) error {
	if err := preloadVectors(ctx, s, identity); err != nil {
		return err
	}
	ids, err := turnIDs(ctx, s)
	if err != nil {
		return err
	}
	if err := preloadFacts(ctx, s, ids, func() {}, func() {}, func() bool { return true }); err != nil {
		return err
	}
	return PreloadVocabulary(ctx, s)
}

// preloadVectors is the first half of Preload: the vectors and the
// collections.
func preloadVectors(ctx context.Context, s *store.Store, identity string) error {
	has, err := hasVectors(ctx, s, identity)
	if err != nil || !has {
		return err
	}
	_, err = collections(ctx, s, identity, Scope{})
	return err
}

// FlatVectors returns the embedder's vectors as one slice, dim floats a
// vector, in the store's segment order. The slice is the store's own and
// must not be written. bench/perf scans it flat: the floor any recall by
// meaning of the same vectors is measured against.
func FlatVectors(ctx context.Context, s *store.Store, identity string) (dim int, vecs []float32, err error) {
	ev, err := loadEmbedderVectors(ctx, s, identity)
	if err != nil {
		return 0, nil, err
	}
	return ev.set.Dim, ev.set.Vecs, nil
}

// recallCache is what recall keeps of an open store: the loaded
// chromem-go collections of a long-running process (a store opened by a
// one-shot command uses them once), each embedder's vectors read from its
// segment, what ranking reads of each turn and the keyword vocabulary.
// The store drops it all when its rows change (Store.Invalidate).
type recallCache struct {
	mu   sync.Mutex
	warm map[collectionKey][]*collection
	// sets caches, per embedder, the vectors read from its segment; they
	// go with the collections.
	sets map[string]*embedderVectors
	// turns caches what ranking reads of each turn (turnFacts).
	turns map[int64]*turnFacts
	// vocab is the keyword index's vocabulary, sorted, when a
	// long-running process loaded it (PreloadVocabulary).
	vocab []vocabTerm
	// marks are the notes' marks by target, oldest first, once read.
	marks map[string][]*Mark
	// reading and building make one cold read of a segment and one build
	// of the missing collections at a time: recalls that arrive together
	// (or during a service's Preload) wait for it instead of repeating it.
	// Taken in that order, before mu.
	reading, building sync.Mutex
	// loads counts the segment reads and collection builds, each of
	// which a cold recall makes once (the tests check it).
	loads atomic.Int64
}

// Invalidate drops the loaded vectors and collections, so the next recall
// reads the store again.
func (c *recallCache) Invalidate() {
	c.mu.Lock()
	c.warm = map[collectionKey][]*collection{}
	c.sets = nil
	c.turns = nil
	c.vocab = nil
	c.marks = nil
	c.mu.Unlock()
}

// recallCacheKey is the key of recall's cache in its store.
type recallCacheKey struct{}

// rc is recall's cache of the store.
func rc(s *store.Store) *recallCache {
	return s.CacheFor(recallCacheKey{}, func() store.Cache {
		return &recallCache{warm: map[collectionKey][]*collection{}}
	}).(*recallCache)
}

// embedderVectors is an embedder's vectorSet with its chunks grouped by
// project and partition.
type embedderVectors struct {
	set      *segment.VectorSet
	projects []string
	groups   map[string]map[partition][]int32
}

// embedderVectors reads the embedder's segment and the session facts
// once, and keeps them until the store changes (Invalidate).
func loadEmbedderVectors(ctx context.Context, s *store.Store, identity string) (*embedderVectors, error) {
	rc(s).mu.Lock()
	ev := rc(s).sets[identity]
	rc(s).mu.Unlock()
	if ev != nil {
		return ev, nil
	}
	rc(s).reading.Lock()
	defer rc(s).reading.Unlock()
	rc(s).mu.Lock()
	ev = rc(s).sets[identity]
	rc(s).mu.Unlock()
	if ev != nil {
		return ev, nil
	}
	rc(s).loads.Add(1)
	set, err := ReadVectors(ctx, s, identity)
	if err != nil {
		return nil, err
	}
	ev = &embedderVectors{set: set, groups: map[string]map[partition][]int32{}}
	for i := range set.Len() {
		m := set.Session(i)
		g := ev.groups[m.Project]
		if g == nil {
			g = map[partition][]int32{}
			ev.groups[m.Project] = g
			ev.projects = append(ev.projects, m.Project)
		}
		pt := partition{harness: m.Harness, subagent: m.Subagent, origin: m.Origin}
		g[pt] = append(g[pt], int32(i))
	}
	slices.Sort(ev.projects)
	rc(s).mu.Lock()
	if rc(s).sets == nil {
		rc(s).sets = map[string]*embedderVectors{}
	}
	rc(s).sets[identity] = ev
	rc(s).mu.Unlock()
	return ev, nil
}

// load builds the collections of one project, one a partition.
func (ev *embedderVectors) load(project string) []*collection {
	parts := ev.groups[project]
	keys := make([]partition, 0, len(parts))
	for pt := range parts {
		keys = append(keys, pt)
	}
	sort.Slice(keys, func(i, j int) bool { return comparePartitions(keys[i], keys[j]) < 0 })
	var out []*collection
	for _, pt := range keys {
		out = append(out, newCollection(ev.set, project, pt, parts[pt]))
	}
	return out
}

// comparePartitions orders a project's partitions, and so its collections.
func comparePartitions(a, b partition) int {
	return cmp.Or(cmp.Compare(a.harness, b.harness), cmp.Compare(a.origin, b.origin), cmp.Compare(fmt.Sprint(a.subagent), fmt.Sprint(b.subagent)))
}

// newCollection makes a collection of the set's chunks members.
func newCollection(set *segment.VectorSet, project string, pt partition, members []int32) *collection {
	c := &collection{project: project, part: pt, set: set, members: members,
		dimension: set.Dim, sum: make([]float64, set.Dim), vecs: make([][]float32, len(members))}
	for k, i := range members {
		v := set.Vector(int(i))
		c.vecs[k] = unitVector(v)
		for j, x := range v {
			c.sum[j] += float64(x)
		}
	}
	return c
}

// unitVector is v, or v scaled to unit length when its length is off 1
// by 1e-6 or more, the rule and the arithmetic by which chromem-go
// normalizes a vector, so that a similarity is the one it gave.
func unitVector(v []float32) []float32 {
	var sq float64
	for _, x := range v {
		sq += float64(x) * float64(x)
	}
	if math.Abs(math.Sqrt(sq)-1) < 1e-6 {
		return v
	}
	var norm float32
	for _, x := range v {
		norm += x * x
	}
	norm = float32(math.Sqrt(float64(norm)))
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = x / norm
	}
	return out
}

// collectionName names a project's chromem-go collection. chromem-go
// refuses an empty name, and a prompt of a prompt history that names no
// project (Codex's, cursor-agent's, Copilot CLI's) is stored with none:
// every semantic recall failed once one was indexed. Each collection is
// alone in its DB, so the name need only be non-empty.
func collectionName(project string) string { return "project:" + project }

// readVectors reads the embedder's segment. A damaged one says how to
// repair it.
func ReadVectors(ctx context.Context, s *store.Store, identity string) (*segment.VectorSet, error) {
	var set *segment.VectorSet
	var err error
	// A compaction may replace the file between reading its name and
	// opening it: read it again only when the ledger names another file.
	var prev segment.SegmentRow
	for try := range 3 {
		row, ok, rerr := segment.ReadSegmentRow(ctx, s.Read(), identity)
		if rerr != nil {
			return nil, rerr
		}
		if try > 0 && row == prev {
			break
		}
		prev = row
		if set, err = s.ReadSegmentFile(filepath.Join(s.Dir(), segment.VectorDir, row.File), row, ok); err == nil {
			return set, nil
		}
	}
	if errors.Is(err, segment.ErrSegmentDamaged) {
		s.AskCheck()
	}
	return nil, fmt.Errorf("store: the %s %w: run 'deja index' to repair it (it embeds the lost turns again)", identity, err)
}

// refuseEmbedding is the collections' embedding function: deja always
// passes vectors, so chromem must never embed (or call the network) itself.
func refuseEmbedding(context.Context, string) ([]float32, error) {
	return nil, fmt.Errorf("store: chromem asked to embed; deja passes vectors")
}

// semanticAmong ranks the given turns whose best chunk's similarity to the
// query vector is at least floor, reading their vectors directly: the
// turns a literal lookup allows are few, and each must be ranked, not only
// those among the collection's nearest. A turn without vectors is left out.
// A recall that scans reads the segment for them (semanticAmongScan).
func semanticAmong(ctx context.Context, s *store.Store, identity string, qvec []float32, allowed map[int64]bool, floor float32, scan bool) ([]semanticHit, error) {
	if len(allowed) == 0 {
		return nil, nil
	}
	if scan {
		return semanticAmongScan(ctx, s, identity, qvec, allowed, floor)
	}
	ev, err := loadEmbedderVectors(ctx, s, identity)
	if err != nil {
		return nil, err
	}
	set := ev.set
	if set.Len() > 0 && set.Dim != len(qvec) {
		return nil, dimensionError(identity, set.Dim, len(qvec))
	}
	best := map[int64]float32{}
	for i, k := range set.Keys {
		if !allowed[k.TurnID] {
			continue
		}
		d := dot(set.Vector(i), qvec)
		if old, ok := best[k.TurnID]; !ok || d > old {
			best[k.TurnID] = d
		}
	}
	return atLeast(best, floor), nil
}

// atLeast ranks the turns of best whose similarity is at least floor.
func atLeast(best map[int64]float32, floor float32) []semanticHit {
	hits := make([]semanticHit, 0, len(best))
	for id, sim := range best {
		if sim >= floor {
			hits = append(hits, semanticHit{turnID: id, similarity: sim})
		}
	}
	sortHits(hits)
	return hits
}

// Centroid is the mean of the embedder's unit vectors in scope, nil when
// there are none: the direction of what the store is about. bench/eval
// prints the corpus's as the prior of the domain test (see domainPrior).
func Centroid(ctx context.Context, s *store.Store, identity string, sc Scope) ([]float32, error) {
	cols, err := collections(ctx, s, identity, sc)
	if err != nil {
		return nil, err
	}
	var sum []float64
	n := 0
	for _, c := range cols {
		if sum == nil {
			sum = make([]float64, len(c.sum))
		}
		if len(c.sum) != len(sum) {
			continue
		}
		for i, x := range c.sum {
			sum[i] += x
		}
		n += len(c.members)
	}
	if n == 0 {
		return nil, nil
	}
	out := make([]float32, len(sum))
	for i, x := range sum {
		out[i] = float32(x / float64(n))
	}
	return out, nil
}

func dot(a, b []float32) float32 {
	var d float32
	for i, x := range a {
		d += x * b[i]
	}
	return d
}
