package memory

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	chromem "github.com/philippgille/chromem-go"
)

// scanGroup is one project's partition during a one-shot recall: what a
// loaded collection would hold, gathered a piece at a time.
type scanGroup struct {
	project string
	part    partition
	// asked says whether the scope queries its chunks; sum and n are its
	// vectors' sum and count, for the query's mean similarity, which
	// covers every partition of the projects in scope.
	asked bool
	vectorSum
}

// semanticScan is semantic for a one-shot recall: each piece of the
// segment's vectors is put into chromem-go collections, one per project
// partition as a load would make them, and each is asked for its
// semanticDepth best chunks (all under a time scope); a project's best
// are among the best of its pieces. The mean similarity is taken over the
// same sums in the same order as from loaded collections, so the domain
// test, and with it every result, is the same; it is known only once the
// whole segment is read, so a query the domain test turns away still
// costs the scan.
func (s *Store) semanticScan(ctx context.Context, identity string, qvec []float32, sc Scope, tune Tuning, trace *Trace) ([]semanticHit, float32, error) {
	started := time.Now()
	timed := sc.timed()
	var (
		set       *vectorSet
		groups    []*scanGroup
		byProject map[string][]chunkHit
		mu        sync.Mutex
		queryErr  error
	)
	err := s.scanVectors(ctx, identity, func(vs *vectorSet) scanVisitor {
		set, byProject, queryErr = vs, map[string][]chunkHit{}, nil
		var of []*scanGroup
		groups, of = scanGroups(vs, sc)
		if vs.dim != len(qvec) {
			// Nothing to query; the dimension check below reports it.
			for _, g := range groups {
				g.sum = nil
			}
			return scanVisitor{inOrder: func(p *vectorPiece) { countPiece(p, vs, of) }, work: func(*vectorPiece) {}}
		}
		return scanVisitor{
			inOrder: func(p *vectorPiece) { sumPiece(p, vs, of) },
			work: func(p *vectorPiece) {
				found, err := queryPiece(ctx, p, vs, of, qvec, sc, timed)
				mu.Lock()
				defer mu.Unlock()
				if err != nil {
					queryErr = cmp.Or(queryErr, err)
					return
				}
				for project, hits := range found {
					kept := append(byProject[project], hits...)
					if !timed && len(kept) > 4*semanticDepth {
						// The best of the pieces so far is all that can
						// make the project's semanticDepth.
						sortChunks(kept)
						kept = kept[:semanticDepth]
					}
					byProject[project] = kept
				}
			},
		}
	})
	if trace != nil {
		trace.VectorQuery += time.Since(started)
	}
	if err != nil {
		return nil, 0, err
	}
	if queryErr != nil {
		return nil, 0, queryErr
	}
	groups = slices.DeleteFunc(groups, func(g *scanGroup) bool { return g.n == 0 })
	// The order of the loaded collections: projects by name, then
	// partitions (see embedderVectors.load).
	slices.SortFunc(groups, func(a, b *scanGroup) int {
		return cmp.Or(cmp.Compare(a.project, b.project), comparePartitions(a.part, b.part))
	})
	all := make([]vectorSum, len(groups))
	for i, g := range groups {
		all[i] = g.vectorSum
	}
	mean := shrunkMean(all, qvec, domainPrior(identity))
	if tune.Domain > 0 && mean < tune.Domain {
		return nil, mean, nil
	}
	if len(groups) > 0 && set.dim != len(qvec) {
		return nil, mean, dimensionError(identity, set.dim, len(qvec))
	}
	return bestTurns(byProject, set, sc, tune.Floor), mean, nil
}

// scanGroups makes the groups of the projects in scope, one for each
// partition its sessions fall in, and returns them and each session's
// group (nil out of scope).
func scanGroups(set *vectorSet, sc Scope) ([]*scanGroup, []*scanGroup) {
	type key struct {
		project string
		part    partition
	}
	byKey := map[key]*scanGroup{}
	var groups []*scanGroup
	of := make([]*scanGroup, set.sessions.len())
	inScope := map[string]bool{}
	for i := range set.sessions.len() {
		m := set.sessions.at(i)
		in, seen := inScope[m.project]
		if !seen {
			in = sc.matchesProject(m.project)
			inScope[m.project] = in
		}
		if !in {
			continue
		}
		k := key{m.project, partition{harness: m.harness, subagent: m.subagent, origin: m.origin}}
		g := byKey[k]
		if g == nil {
			g = &scanGroup{project: k.project, part: k.part, asked: sc.keeps(k.part), vectorSum: vectorSum{sum: make([]float64, set.dim)}}
			byKey[k] = g
			groups = append(groups, g)
		}
		of[i] = g
	}
	return groups, of
}

// sumPiece adds the piece's vectors to their groups' sums, as a loaded
// collection sums its members: in the order of the set.
func sumPiece(p *vectorPiece, set *vectorSet, of []*scanGroup) {
	dim := set.dim
	for i, idx := range p.idx {
		g := of[set.of[idx]]
		if g == nil {
			continue
		}
		for j, x := range p.vecs[i*dim : (i+1)*dim] {
			g.sum[j] += float64(x)
		}
		g.n++
	}
}

// countPiece counts the piece's vectors in their groups.
func countPiece(p *vectorPiece, set *vectorSet, of []*scanGroup) {
	for _, idx := range p.idx {
		if g := of[set.of[idx]]; g != nil {
			g.n++
		}
	}
}

// queryPiece puts the piece's chunks that the scope asks into one
// chromem-go collection per group and asks each for its most similar
// chunks, and returns them by project.
func queryPiece(ctx context.Context, p *vectorPiece, set *vectorSet, of []*scanGroup, qvec []float32, sc Scope, timed bool) (map[string][]chunkHit, error) {
	dim := set.dim
	var order []*scanGroup
	members := map[*scanGroup][]int{}
	for i, idx := range p.idx {
		m := set.session(int(idx))
		g := of[set.of[idx]]
		if g == nil || !g.asked || sc.Session != "" && m.id != sc.Session {
			continue
		}
		if _, ok := members[g]; !ok {
			order = append(order, g)
		}
		members[g] = append(members[g], i)
	}
	found := map[string][]chunkHit{}
	for _, g := range order {
		db := chromem.NewDB()
		col, err := db.CreateCollection(g.project, nil, refuseEmbedding)
		if err != nil {
			return nil, fmt.Errorf("store: %w", err)
		}
		for _, i := range members[g] {
			v := p.vecs[i*dim : (i+1)*dim : (i+1)*dim]
			if err := col.AddDocument(ctx, chromem.Document{ID: strconv.Itoa(int(p.idx[i])), Embedding: v}); err != nil {
				return nil, fmt.Errorf("store: loading vectors: %w", err)
			}
		}
		c := &collection{col: col}
		hits, err := c.query(ctx, qvec, timed)
		if err != nil {
			return nil, err
		}
		found[g.project] = append(found[g.project], hits...)
	}
	return found, nil
}

// semanticAmongScan is semanticAmong for a one-shot recall: the allowed
// turns' vectors are found in a scan of the segment.
func (s *Store) semanticAmongScan(ctx context.Context, identity string, qvec []float32, allowed map[int64]bool, floor float32) ([]semanticHit, error) {
	var best map[int64]float32
	var mu sync.Mutex
	var dimErr error
	err := s.scanVectors(ctx, identity, func(set *vectorSet) scanVisitor {
		best, dimErr = map[int64]float32{}, nil
		skip := scanVisitor{inOrder: func(*vectorPiece) {}, work: func(*vectorPiece) {}}
		if set.len() > 0 && set.dim != len(qvec) {
			dimErr = dimensionError(identity, set.dim, len(qvec))
			return skip
		}
		skip.work = func(p *vectorPiece) {
			dim := set.dim
			for i, idx := range p.idx {
				id := set.keys[idx].turnID
				if !allowed[id] {
					continue
				}
				d := dot(p.vecs[i*dim:(i+1)*dim], qvec)
				mu.Lock()
				if old, ok := best[id]; !ok || d > old {
					best[id] = d
				}
				mu.Unlock()
			}
		}
		return skip
	})
	if err != nil {
		return nil, err
	}
	if dimErr != nil {
		return nil, dimErr
	}
	return atLeast(best, floor), nil
}
