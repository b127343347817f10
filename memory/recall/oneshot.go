package recall

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/deja-dev/deja/memory/store"
	"github.com/deja-dev/deja/memory/store/segment"
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
func semanticScan(ctx context.Context, s *store.Store, identity string, qvec []float32, sc Scope, tune Tuning, trace *Trace) ([]semanticHit, float32, error) {
	started := time.Now()
	timed := sc.timed()
	var (
		set       *segment.VectorSet
		groups    []*scanGroup
		byProject map[string][]chunkHit
		mu        sync.Mutex
		queryErr  error
	)
	err := s.ScanVectors(ctx, identity, func(vs *segment.VectorSet) segment.ScanVisitor {
		set, byProject, queryErr = vs, map[string][]chunkHit{}, nil
		var of []*scanGroup
		groups, of = scanGroups(vs, sc)
		if vs.Dim != len(qvec) {
			// Nothing to query; the dimension check below reports it.
			for _, g := range groups {
				g.sum = nil
			}
			return segment.ScanVisitor{InOrder: func(p *segment.VectorPiece) { countPiece(p, vs, of) }, Work: func(*segment.VectorPiece) {}}
		}
		return segment.ScanVisitor{
			InOrder: func(p *segment.VectorPiece) { sumPiece(p, vs, of) },
			Work: func(p *segment.VectorPiece) {
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
	if len(groups) > 0 && set.Dim != len(qvec) {
		return nil, mean, dimensionError(identity, set.Dim, len(qvec))
	}
	return bestTurns(byProject, set, sc, tune.Floor), mean, nil
}

// scanGroups makes the groups of the projects in scope, one for each
// partition its sessions fall in, and returns them and each session's
// group (nil out of scope).
func scanGroups(set *segment.VectorSet, sc Scope) ([]*scanGroup, []*scanGroup) {
	type key struct {
		project string
		part    partition
	}
	byKey := map[key]*scanGroup{}
	var groups []*scanGroup
	of := make([]*scanGroup, set.Sessions.Len())
	inScope := map[string]bool{}
	for i := range set.Sessions.Len() {
		m := set.Sessions.At(i)
		in, seen := inScope[m.Project]
		if !seen {
			in = sc.matchesProject(m.Project)
			inScope[m.Project] = in
		}
		if !in {
			continue
		}
		k := key{m.Project, partition{harness: m.Harness, subagent: m.Subagent, origin: m.Origin}}
		g := byKey[k]
		if g == nil {
			g = &scanGroup{project: k.project, part: k.part, asked: sc.keeps(k.part), vectorSum: vectorSum{sum: make([]float64, set.Dim)}}
			byKey[k] = g
			groups = append(groups, g)
		}
		of[i] = g
	}
	return groups, of
}

// sumPiece adds the piece's vectors to their groups' sums, as a loaded
// collection sums its members: in the order of the set.
func sumPiece(p *segment.VectorPiece, set *segment.VectorSet, of []*scanGroup) {
	dim := set.Dim
	for i, idx := range p.Idx {
		g := of[set.Of[idx]]
		if g == nil {
			continue
		}
		for j, x := range p.Vecs[i*dim : (i+1)*dim] {
			g.sum[j] += float64(x)
		}
		g.n++
	}
}

// countPiece counts the piece's vectors in their groups.
func countPiece(p *segment.VectorPiece, set *segment.VectorSet, of []*scanGroup) {
	for _, idx := range p.Idx {
		if g := of[set.Of[idx]]; g != nil {
			g.n++
		}
	}
}

// queryPiece puts the piece's chunks that the scope asks into one
// chromem-go collection per group and asks each for its most similar
// chunks, and returns them by project.
func queryPiece(ctx context.Context, p *segment.VectorPiece, set *segment.VectorSet, of []*scanGroup, qvec []float32, sc Scope, timed bool) (map[string][]chunkHit, error) {
	dim := set.Dim
	var order []*scanGroup
	members := map[*scanGroup][]int{}
	for i, idx := range p.Idx {
		m := set.Session(int(idx))
		g := of[set.Of[idx]]
		if g == nil || !g.asked || sc.Session != "" && m.Id != sc.Session {
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
		col, err := db.CreateCollection(collectionName(g.project), nil, refuseEmbedding)
		if err != nil {
			return nil, fmt.Errorf("store: %w", err)
		}
		for _, i := range members[g] {
			v := p.Vecs[i*dim : (i+1)*dim : (i+1)*dim]
			if err := col.AddDocument(ctx, chromem.Document{ID: strconv.Itoa(int(p.Idx[i])), Embedding: v}); err != nil {
				return nil, fmt.Errorf("store: loading vectors: %w", err)
			}
		}
		hits, err := queryChromem(ctx, col, qvec, timed)
		if err != nil {
			return nil, err
		}
		found[g.project] = append(found[g.project], hits...)
	}
	return found, nil
}

// semanticAmongScan is semanticAmong for a one-shot recall: the allowed
// turns' vectors are found in a scan of the segment.
func semanticAmongScan(ctx context.Context, s *store.Store, identity string, qvec []float32, allowed map[int64]bool, floor float32) ([]semanticHit, error) {
	var best map[int64]float32
	var mu sync.Mutex
	var dimErr error
	err := s.ScanVectors(ctx, identity, func(set *segment.VectorSet) segment.ScanVisitor {
		best, dimErr = map[int64]float32{}, nil
		skip := segment.ScanVisitor{InOrder: func(*segment.VectorPiece) {}, Work: func(*segment.VectorPiece) {}}
		if set.Len() > 0 && set.Dim != len(qvec) {
			dimErr = dimensionError(identity, set.Dim, len(qvec))
			return skip
		}
		skip.Work = func(p *segment.VectorPiece) {
			dim := set.Dim
			for i, idx := range p.Idx {
				id := set.Keys[idx].TurnID
				if !allowed[id] {
					continue
				}
				d := dot(p.Vecs[i*dim:(i+1)*dim], qvec)
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
