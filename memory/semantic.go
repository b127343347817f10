package memory

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	chromem "github.com/philippgille/chromem-go"
)

// collectionKey names one in-memory chromem-go collection: one project's
// vectors of one embedder, never mixed with another embedder's.
type collectionKey struct {
	embedder, project string
}

// collection is a loaded chromem-go collection with what chromem cannot
// report itself (DESIGN.md: collection metadata cannot be read back).
type collection struct {
	col       *chromem.Collection
	dimension int
	loaded    time.Duration
	// sum is the sum of the collection's unit vectors: a query's mean
	// similarity to the collection is its dot product with sum over the
	// count, one dot product instead of a pass over the documents.
	sum []float64
}

// semanticHit is one turn's best chunk for a query.
type semanticHit struct {
	turnID     int64
	similarity float32
}

// semanticDepth is how many chunks a query asks each collection for; the
// chunks of one long turn can crowd the top, so ask for more than needed.
const semanticDepth = 100

// semantic returns the turns most similar to the query vector, best first,
// at or above floor, within scope, and the query's mean similarity to the
// documents in scope. A query whose mean is below domain is about something
// else (see Domain) and has no semantic matches.
func (s *Store) semantic(ctx context.Context, identity string, qvec []float32, sc Scope, tune Tuning) ([]semanticHit, float32, error) {
	floor, domain := tune.Floor, tune.Domain
	cols, err := s.collections(ctx, identity, sc)
	if err != nil {
		return nil, 0, err
	}
	mean := shrunkMean(cols, qvec, domainPrior(identity))
	if domain > 0 && mean < domain {
		return nil, mean, nil
	}
	best := map[int64]float32{}
	for _, c := range cols {
		if c.dimension == 0 {
			// A project none of whose turns has a vector (text the
			// embedder has no words for) has nothing to offer, and must
			// not fail the query for the others.
			continue
		}
		if c.dimension != len(qvec) {
			return nil, mean, fmt.Errorf("store: %s vectors are %d-d but the query is %d-d: run 'deja index --full'", identity, c.dimension, len(qvec))
		}
		where := map[string]string{}
		if sc.Session != "" {
			where["session"] = sc.Session
		}
		if sc.Harness != "" {
			where["harness"] = sc.Harness
		}
		if sc.excludesSubagents() {
			where["subagent"] = "0"
		}
		if o := sc.origin(); o != "" {
			where["origin"] = o
		}
		n := semanticDepth
		if !sc.Since.IsZero() || !sc.Until.IsZero() {
			n = c.col.Count() // filtered after the query: ask for everything
		}
		n = min(n, c.col.Count()) // chromem errors when asked for more than it holds
		if n == 0 {
			continue
		}
		res, err := c.col.QueryEmbedding(ctx, qvec, n, where, nil)
		if err != nil {
			return nil, mean, fmt.Errorf("store: vector query: %w", err)
		}
		for _, r := range res {
			if r.Similarity < floor {
				break
			}
			if !inTime(r.Metadata["started_ns"], sc) {
				continue
			}
			id, _ := strconv.ParseInt(r.Metadata["turn_id"], 10, 64)
			if r.Similarity > best[id] {
				best[id] = r.Similarity
			}
		}
	}
	hits := make([]semanticHit, 0, len(best))
	for id, sim := range best {
		hits = append(hits, semanticHit{turnID: id, similarity: sim})
	}
	sortHits(hits)
	return hits, mean, nil
}

// meanSimilarity is the query's mean cosine similarity to every document of
// the collections (1 when they are empty, so no query is refused for it).
// A session or time scope still averages over its whole project.
func meanSimilarity(cols []*collection, qvec []float32) float32 {
	var dot float64
	n := 0
	for _, c := range cols {
		if len(c.sum) != len(qvec) {
			continue // the dimension check in semantic reports it
		}
		for i, x := range qvec {
			dot += float64(x) * c.sum[i]
		}
		n += c.col.Count()
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
func shrunkMean(cols []*collection, qvec, prior []float32) float32 {
	mean := meanSimilarity(cols, qvec)
	if len(prior) != len(qvec) {
		return mean
	}
	n := 0
	for _, c := range cols {
		if len(c.sum) == len(qvec) {
			n += c.col.Count()
		}
	}
	if n == 0 {
		mean = 0
	}
	return (float32(n)*mean + domainPseudoCount*dot(qvec, prior)) / float32(n+domainPseudoCount)
}

// addUnit adds v scaled to unit length to sum, as chromem stores it.
func addUnit(sum []float64, v []float32) {
	var sq float64
	for _, x := range v {
		sq += float64(x) * float64(x)
	}
	n := math.Sqrt(sq)
	for i, x := range v {
		sum[i] += float64(x) / n
	}
}

func inTime(startedNS string, sc Scope) bool {
	if sc.Since.IsZero() && sc.Until.IsZero() {
		return true
	}
	ns, err := strconv.ParseInt(startedNS, 10, 64)
	if err != nil {
		return false
	}
	return (sc.Since.IsZero() || ns >= sc.Since.UnixNano()) && (sc.Until.IsZero() || ns < sc.Until.UnixNano())
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
// scope, loading from the ledger those not loaded yet. A warm store (a
// long-running process) keeps them; their contents are replaced when an
// index run changes the store (see Invalidate).
func (s *Store) collections(ctx context.Context, identity string, sc Scope) ([]*collection, error) {
	projects, err := s.vectorProjects(ctx, identity, sc)
	if err != nil {
		return nil, err
	}
	var out []*collection
	var missing int
	s.mu.Lock()
	for _, p := range projects {
		if s.warm[collectionKey{identity, p}] == nil {
			missing++
		}
	}
	s.mu.Unlock()
	var facts map[string]sessionMeta
	if missing > 1 {
		// One read of every session's facts for all the loads instead
		// of one per project (a cold recall over a store of many).
		if facts, err = s.readSessionMeta(ctx, ""); err != nil {
			return nil, err
		}
	}
	for _, p := range projects {
		key := collectionKey{identity, p}
		s.mu.Lock()
		c := s.warm[key]
		s.mu.Unlock()
		if c == nil {
			c, err = s.loadCollection(ctx, key, facts)
			if err != nil {
				return nil, err
			}
			s.mu.Lock()
			s.warm[key] = c
			s.mu.Unlock()
		}
		out = append(out, c)
	}
	return out, nil
}

// Invalidate drops the loaded collections, so the next recall reads the
// vectors again; a long-running process calls it after an index run.
func (s *Store) Invalidate() {
	s.mu.Lock()
	s.warm = map[collectionKey]*collection{}
	s.projects = nil
	s.mu.Unlock()
}

// vectorProjects lists the projects in scope holding the embedder's
// vectors. It asks the small sessions table for the projects and the
// vectors' primary key for one row each: a DISTINCT over the vectors
// themselves read every vector (measured: 1.2 s at 100k turns).
// A warm store keeps the list until the store changes (Invalidate), so a
// warm recall does not ask again.
func (s *Store) vectorProjects(ctx context.Context, identity string, sc Scope) ([]string, error) {
	s.mu.Lock()
	projects, ok := s.projects[identity]
	s.mu.Unlock()
	if !ok {
		var err error
		projects, err = queryStrings(ctx, s.db, `
			SELECT p.project FROM (SELECT DISTINCT project FROM sessions) p
			WHERE EXISTS (SELECT 1 FROM vectors v WHERE v.embedder = ? AND v.project = p.project)`, identity)
		if err != nil {
			return nil, fmt.Errorf("store: listing projects: %w", err)
		}
		s.mu.Lock()
		if s.projects == nil {
			s.projects = map[string][]string{}
		}
		s.projects[identity] = projects
		s.mu.Unlock()
	}
	return slices.DeleteFunc(slices.Clone(projects), func(p string) bool { return !sc.matchesProject(p) }), nil
}

// loadCollection reads one project's vectors of one embedder into a new
// in-memory chromem-go collection, with each chunk's session metadata.
// Chunks with a zero vector are left out: they have no direction and
// chromem would normalise them to NaN.
func (s *Store) loadCollection(ctx context.Context, key collectionKey, facts map[string]sessionMeta) (*collection, error) {
	start := time.Now()
	db := chromem.NewDB()
	name := key.embedder + "\x00" + key.project
	col, err := db.CreateCollection(name, nil, refuseEmbedding)
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	sessions := facts
	if sessions == nil {
		var err error
		if sessions, err = s.sessionMeta(ctx, key.project); err != nil {
			return nil, err
		}
	}
	rows, err := s.db.QueryContext(ctx, `
		SELECT turn_id, part, session_id, turn, vec FROM vectors
		WHERE embedder = ? AND project = ? AND length(vec) > 0`, key.embedder, key.project)
	if err != nil {
		return nil, fmt.Errorf("store: loading vectors: %w", err)
	}
	defer rows.Close()
	c := &collection{col: col}
	var id strings.Builder
	for rows.Next() {
		var turnID int64
		var part, turn int
		var session string
		var blob []byte
		if err := rows.Scan(&turnID, &part, &session, &turn, &blob); err != nil {
			return nil, err
		}
		vec := decodeVector(blob)
		if c.dimension == 0 {
			c.dimension = len(vec)
			c.sum = make([]float64, len(vec))
		} else if len(vec) != c.dimension {
			// chromem would accept it and then fail every query.
			return nil, fmt.Errorf("store: %s holds vectors of %d and %d dimensions: run 'deja index --full'", key.embedder, c.dimension, len(vec))
		}
		id.Reset()
		id.WriteString(strconv.FormatInt(turnID, 10))
		id.WriteByte('/')
		id.WriteString(strconv.Itoa(part))
		sm := sessions[session]
		meta := map[string]string{
			"turn_id":  strconv.FormatInt(turnID, 10),
			"session":  session,
			"turn":     strconv.Itoa(turn),
			"history":  sm.history,
			"project":  key.project,
			"harness":  sm.harness,
			"subagent": sm.subagent,
			"origin":   originOf(sm.history),
		}
		if sm.started != "" {
			meta["started"] = sm.started
			meta["started_ns"] = sm.startedNS
		}
		// chromem copies the map, so one map per document is all it costs.
		if err := col.AddDocument(ctx, chromem.Document{ID: id.String(), Metadata: meta, Embedding: vec}); err != nil {
			return nil, fmt.Errorf("store: loading vectors: %w", err)
		}
		addUnit(c.sum, vec)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: loading vectors: %w", err)
	}
	c.loaded = time.Since(start)
	return c, nil
}

// refuseEmbedding is the collections' embedding function: deja always
// passes vectors, so chromem must never embed (or call the network) itself.
func refuseEmbedding(context.Context, string) ([]float32, error) {
	return nil, fmt.Errorf("store: chromem asked to embed; deja passes vectors")
}

// sessionMeta is the session metadata chromem documents carry.
type sessionMeta struct {
	history, started, startedNS string
	harness, subagent           string
}

// sessionMeta reads the sessions of a project once per collection load.
func (s *Store) sessionMeta(ctx context.Context, project string) (map[string]sessionMeta, error) {
	return s.readSessionMeta(ctx, `WHERE project = ?`, project)
}

func (s *Store) readSessionMeta(ctx context.Context, where string, args ...any) (map[string]sessionMeta, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, path, coalesce(started, ''), coalesce(started_ns, ''), harness, subagent FROM sessions `+where, args...)
	if err != nil {
		return nil, fmt.Errorf("store: loading sessions: %w", err)
	}
	defer rows.Close()
	out := map[string]sessionMeta{}
	for rows.Next() {
		var id string
		var m sessionMeta
		if err := rows.Scan(&id, &m.history, &m.started, &m.startedNS, &m.harness, &m.subagent); err != nil {
			return nil, err
		}
		out[id] = m
	}
	return out, rows.Err()
}

// semanticAmong ranks the given turns whose best chunk's similarity to the
// query vector is at least floor, reading their vectors directly: the
// turns a literal lookup allows are few, and each must be ranked, not only
// those among the collection's nearest. A turn without vectors is left out.
func (s *Store) semanticAmong(ctx context.Context, identity string, qvec []float32, allowed map[int64]bool, floor float32) ([]semanticHit, error) {
	if len(allowed) == 0 {
		return nil, nil
	}
	ids := make([]string, 0, len(allowed))
	for id := range allowed {
		ids = append(ids, strconv.FormatInt(id, 10))
	}
	rows, err := s.db.QueryContext(ctx, `SELECT turn_id, vec FROM vectors
		WHERE embedder = ? AND length(vec) > 0 AND turn_id IN (`+strings.Join(ids, ",")+`)`, identity)
	if err != nil {
		return nil, fmt.Errorf("store: reading vectors: %w", err)
	}
	defer rows.Close()
	best := map[int64]float32{}
	for rows.Next() {
		var id int64
		var blob []byte
		if err := rows.Scan(&id, &blob); err != nil {
			return nil, err
		}
		vec := normalize(decodeVector(blob))
		if vec == nil {
			continue
		}
		if len(vec) != len(qvec) {
			return nil, fmt.Errorf("store: %s vectors are %d-d but the query is %d-d: run 'deja index --full'", identity, len(vec), len(qvec))
		}
		var dot float32
		for i, x := range vec {
			dot += x * qvec[i]
		}
		if old, ok := best[id]; !ok || dot > old {
			best[id] = dot
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	hits := make([]semanticHit, 0, len(best))
	for id, sim := range best {
		if sim >= floor {
			hits = append(hits, semanticHit{turnID: id, similarity: sim})
		}
	}
	sortHits(hits)
	return hits, nil
}

// Centroid is the mean of the embedder's unit vectors in scope, nil when
// there are none: the direction of what the store is about. bench/eval
// prints the corpus's as the prior of the domain test (see domainPrior).
func (s *Store) Centroid(ctx context.Context, identity string, sc Scope) ([]float32, error) {
	cols, err := s.collections(ctx, identity, sc)
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
		n += c.col.Count()
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
