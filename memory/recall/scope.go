package recall

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/deja-dev/deja/memory/store"
	"github.com/deja-dev/deja/userfile"
)

// Scope narrows recall to part of the store. The zero Scope is everything.
type Scope struct {
	// Project is a project directory; sessions of histories in it or in a
	// directory below it match.
	Project string
	// Session is one session ID.
	Session string
	// Since and Until bound the session start time; sessions with an
	// unknown start match neither bound.
	Since, Until time.Time
	// Harness, when set, keeps the sessions of that harness alone.
	Harness string
	// Subagents includes sessions a subagent ran (Claude Code sidechains,
	// Codex exec runs), which recall leaves out by default so they do not
	// flood it. A Session scope always includes its session.
	Subagents bool
	// Mine keeps this machine's own sessions alone, leaving out those
	// folded in from a team.
	Mine bool
	// From keeps the sessions folded in from that member of a team alone:
	// the user they publish as (team.user).
	From string
}

// filtered reports whether the scope narrows anything beyond leaving
// subagent sessions out.
func (sc Scope) filtered() bool {
	return sc.Project != "" || sc.Session != "" || !sc.Since.IsZero() || !sc.Until.IsZero() || sc.Harness != "" ||
		sc.Mine || sc.From != ""
}

// origin is the value of a chunk's "origin" metadata that the scope keeps
// (see originOf), empty for any.
func (sc Scope) origin() string {
	switch {
	case sc.From != "":
		return store.TeamPathPrefix + sc.From
	case sc.Mine:
		return store.LocalOrigin
	}
	return ""
}

// timed reports whether the scope keeps sessions by their start.
func (sc Scope) timed() bool { return !sc.Since.IsZero() || !sc.Until.IsZero() }

// excludesSubagents reports whether subagent sessions are out of scope.
func (sc Scope) excludesSubagents() bool { return !sc.Subagents && sc.Session == "" }

// sql returns a WHERE fragment over sessions aliased s, and its arguments.
func (sc Scope) Sql() (string, []any) {
	var conds []string
	var args []any
	if sc.Project != "" {
		p := filepath.Clean(sc.Project)
		conds = append(conds, `(s.project = ? OR substr(s.project, 1, ?) = ?)`)
		prefix := strings.TrimSuffix(p, string(filepath.Separator)) + string(filepath.Separator)
		args = append(args, p, len(prefix), prefix)
	}
	if sc.Session != "" {
		conds = append(conds, `s.id = ?`)
		args = append(args, sc.Session)
	}
	if !sc.Since.IsZero() {
		conds = append(conds, `s.started_ns >= ?`)
		args = append(args, sc.Since.UnixNano())
	}
	if !sc.Until.IsZero() {
		conds = append(conds, `s.started_ns < ?`)
		args = append(args, sc.Until.UnixNano())
	}
	if sc.Harness != "" {
		conds = append(conds, `s.harness = ?`)
		args = append(args, sc.Harness)
	}
	if sc.excludesSubagents() {
		conds = append(conds, `s.subagent = 0`)
	}
	// A folded session's path is team:USER@MACHINE (teamPath), and a
	// machine's name holds no '@', so the user is what comes before the
	// last one.
	if sc.Mine {
		conds = append(conds, `substr(s.path, 1, ?) != ?`)
		args = append(args, len(store.TeamPathPrefix), store.TeamPathPrefix)
	}
	if sc.From != "" {
		prefix := store.TeamPathPrefix + sc.From + "@"
		conds = append(conds, `substr(s.path, 1, ?) = ? AND instr(substr(s.path, ?), '@') = 0`)
		args = append(args, len(prefix), prefix, len(prefix)+1)
	}
	if len(conds) == 0 {
		return "1", nil
	}
	return strings.Join(conds, " AND "), args
}

// matchesProject reports whether project is sc's project or below it.
func (sc Scope) matchesProject(project string) bool {
	if sc.Project == "" {
		return true
	}
	p := filepath.Clean(sc.Project)
	return project == p || strings.HasPrefix(project, strings.TrimSuffix(p, string(filepath.Separator))+string(filepath.Separator))
}

// InProject reports whether a session's project is dir or lies below it.
func InProject(project, dir string) bool { return Scope{Project: dir}.matchesProject(project) }

// ErrBadScope marks a scope that can match nothing for a reason the user
// can fix: a project nothing was indexed in, or a since after its until.
// Commands exit 2 on it; the servers answer it as a bad request.
var ErrBadScope = errors.New("bad scope")

// scopeError is a CheckScope refusal: its text is the whole sentence, and
// it is ErrBadScope to errors.Is.
type scopeError struct{ msg string }

func (e scopeError) Error() string        { return e.msg }
func (e scopeError) Is(target error) bool { return target == ErrBadScope }

// ResolveProject makes a project directory as a person types it absolute:
// "~" and "~/…" are the home directory (a quoted '~/src/x' reaches deja
// unexpanded), a relative path is taken from the working directory, and
// symlinks are resolved as the indexer resolves history paths.
func ResolveProject(p string) (string, error) {
	p = strings.TrimSpace(p)
	if p == "~" || strings.HasPrefix(p, "~/") || strings.HasPrefix(p, "~"+string(filepath.Separator)) {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("%q: %w", p, err)
		}
		p = filepath.Join(home, p[1:])
	}
	return userfile.ResolvePath(p)
}

// CheckScope refuses a scope that can match nothing because of how it was
// asked: since not before until, or a project no indexed session lies in
// (the error names the closest indexed projects). It wraps ErrBadScope.
func CheckScope(ctx context.Context, s *store.Store, sc Scope) error {
	if !sc.Since.IsZero() && !sc.Until.IsZero() && !sc.Since.Before(sc.Until) {
		return scopeError{fmt.Sprintf("since %s is not before until %s, so no session can match: swap them", since(sc.Since), until(sc.Until))}
	}
	if sc.Project == "" {
		return nil
	}
	projects, err := store.QueryStrings(ctx, s.Read(), `SELECT DISTINCT project FROM sessions ORDER BY project`)
	if err != nil {
		return fmt.Errorf("store: listing projects: %w", err)
	}
	if len(projects) == 0 {
		return nil // nothing indexed at all: the caller says that instead
	}
	for _, p := range projects {
		if sc.matchesProject(p) {
			return nil
		}
	}
	near := closestProjects(sc.Project, projects, 3)
	if len(near) == 0 {
		return scopeError{fmt.Sprintf("no indexed session is in %s or below it, and no indexed project is near it ('deja sessions' lists them all)", sc.Project)}
	}
	return scopeError{fmt.Sprintf("no indexed session is in %s or below it; the closest indexed projects are %s ('deja sessions' lists them all)",
		sc.Project, strings.Join(near, ", "))}
}

// closestProjects ranks the indexed projects a person may have meant for
// dir: a project that holds dir first (a --project run from inside a
// repository's subdirectory), then by the edit distance of the last path
// element, then of the whole path. Only those near are named: one that
// holds dir (but the home directory, which holds every project), one
// whose name is within maxEdits of dir's, or one beside dir in the same
// directory; none when no project is near.
func closestProjects(dir string, projects []string, n int) []string {
	home, _ := os.UserHomeDir()
	type ranked struct {
		path        string
		holds       bool
		base, whole int
	}
	rs := make([]ranked, len(projects))
	for i, p := range projects {
		rel, err := filepath.Rel(p, dir)
		rs[i] = ranked{
			path:  p,
			holds: err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)),
			base:  editDistance(filepath.Base(dir), filepath.Base(p), noLimit),
			whole: editDistance(dir, p, noLimit),
		}
	}
	sort.SliceStable(rs, func(i, j int) bool {
		a, b := rs[i], rs[j]
		if a.holds != b.holds {
			return a.holds
		}
		if a.base != b.base {
			return a.base < b.base
		}
		return a.whole < b.whole
	})
	out := make([]string, 0, n)
	for _, r := range rs {
		near := (r.holds && r.path != home) || r.base <= maxEdits(filepath.Base(dir)) || filepath.Dir(r.path) == filepath.Dir(dir)
		if near && len(out) < n {
			out = append(out, r.path)
		}
	}
	return out
}

// since and until format a scope's bounds as a person gave them: a date
// flag gives a local midnight, and an until date is the next midnight
// (the day itself included); an age or a time gives the minute.
func since(t time.Time) string {
	if isMidnight(t) {
		return t.Format("2006-01-02")
	}
	return t.Format("2006-01-02 15:04")
}

func until(t time.Time) string {
	if isMidnight(t) {
		return t.AddDate(0, 0, -1).Format("2006-01-02") + " (that day included)"
	}
	return t.Format("2006-01-02 15:04")
}

func isMidnight(t time.Time) bool {
	return t.Hour() == 0 && t.Minute() == 0 && t.Second() == 0 && t.Nanosecond() == 0
}

// describe says what a filtered scope keeps, for a note such as "12 turns
// match, none since 2026-11-25 in /home/dev/shop".
func (sc Scope) describe() string {
	var parts []string
	if !sc.Since.IsZero() {
		parts = append(parts, "since "+since(sc.Since))
	}
	if !sc.Until.IsZero() {
		parts = append(parts, "until "+until(sc.Until))
	}
	if sc.Project != "" {
		parts = append(parts, "in "+sc.Project)
	}
	if sc.Session != "" {
		parts = append(parts, "in session "+sc.Session)
	}
	if sc.Harness != "" {
		parts = append(parts, "from "+sc.Harness)
	}
	if sc.Mine {
		parts = append(parts, "of this machine's own")
	}
	if sc.From != "" {
		parts = append(parts, "folded in from "+sc.From)
	}
	return strings.Join(parts, " ")
}

// scopeCountCap bounds the unscoped recall that counts what a filter
// excluded: the note says "more than" past it.
const scopeCountCap = 200

// explainScope gives an empty recall under a filter the note a person
// needs: whether turns match outside the filter ("12 turns match, none
// since 2026-11-25"), so a filter that excluded everything does not read
// as an empty memory. It recalls again without the filter, which costs a
// second recall only when the first found nothing.
func explainScope(ctx context.Context, s *store.Store, opts Options, r *Answer) error {
	if len(r.Results) > 0 || !opts.Scope.filtered() {
		return nil
	}
	wide := opts
	wide.Scope = Scope{Subagents: opts.Scope.Subagents}
	wide.Limit = scopeCountCap + 1
	all, err := Recall(ctx, s, wide)
	if err != nil {
		return err
	}
	n := len(all.Results)
	switch {
	case n == 0:
		return nil // nothing matches anywhere: the recall's own note says so
	case n > scopeCountCap:
		r.Note = fmt.Sprintf("more than %d turns match, none %s", scopeCountCap, opts.Scope.describe())
	case n == 1:
		r.Note = fmt.Sprintf("1 turn matches, none %s", opts.Scope.describe())
	default:
		r.Note = fmt.Sprintf("%d turns match, none %s", n, opts.Scope.describe())
	}
	return nil
}

// noneFrom is the note of a recall --from a user no session in the store
// came from, saying who the store holds turns from instead, or that no
// team folded any in; empty when some session came from user.
func noneFrom(ctx context.Context, s *store.Store, user string) (string, error) {
	if user == "" {
		return "", nil
	}
	// ';' follows ':', so the range is every path team: begins, and the
	// sessions_path index answers it.
	paths, err := store.QueryStrings(ctx, s.Read(), `SELECT DISTINCT path FROM sessions WHERE path >= ? AND path < ? ORDER BY path`, store.TeamPathPrefix, "team;")
	if err != nil {
		return "", fmt.Errorf("store: listing team members: %w", err)
	}
	var members []string
	for _, p := range paths {
		m := strings.TrimPrefix(store.OriginOf(p), store.TeamPathPrefix)
		if m == user {
			return "", nil
		}
		if !slices.Contains(members, m) {
			members = append(members, m)
		}
	}
	if len(members) == 0 {
		return fmt.Sprintf("no turn from %s: this store holds no team's turns yet ('deja team sync' folds them in; 'deja team status' shows the team)", user), nil
	}
	return fmt.Sprintf("no turn from %s: the team's turns in this store are from %s", user, strings.Join(members, ", ")), nil
}

// ProjectOf is the indexed project that holds dir (dir itself or the
// nearest directory above it that sessions were indexed for), or "" when
// no indexed project holds it.
func ProjectOf(ctx context.Context, s *store.Store, dir string) (string, error) {
	projects, err := store.QueryStrings(ctx, s.Read(), `SELECT DISTINCT project FROM sessions WHERE project != ''`)
	if err != nil {
		return "", fmt.Errorf("store: listing projects: %w", err)
	}
	dir = filepath.Clean(dir)
	best := ""
	for _, p := range projects {
		if (Scope{Project: p}).matchesProject(dir) && len(p) > len(best) {
			best = p
		}
	}
	return best, nil
}

// Harnesses are the harnesses of the indexed sessions, sorted.
func Harnesses(ctx context.Context, s *store.Store) ([]string, error) {
	hs, err := store.QueryStrings(ctx, s.Read(), `SELECT DISTINCT harness FROM sessions ORDER BY harness`)
	if err != nil {
		return nil, fmt.Errorf("store: listing harnesses: %w", err)
	}
	return hs, nil
}
