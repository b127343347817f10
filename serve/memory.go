package serve

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/deja-dev/deja/embed"
	"github.com/deja-dev/deja/memory/digest"
	"github.com/deja-dev/deja/memory/recall"
	"github.com/deja-dev/deja/memory/store"
)

// Memory is what the tools and the recall endpoint answer from: one warm
// store, opened once and shared by every client, and the embedder chosen
// once at start.
type Memory struct {
	Store *recall.Warm
	// Embedder embeds queries; nil when none is available, and then
	// NoEmbedder says why (recall falls back to keywords and says so).
	Embedder   embed.Embedder
	NoEmbedder string
	// Mode and Limit are recall's defaults (recall.mode, recall.limit).
	Mode  recall.Mode
	Limit int
	// Harnesses are the harness names a request may filter by; nil takes
	// any name.
	Harnesses []string
	// Keep keeps a note (text, project, tags) in the store and returns its
	// ID: the remember tool. Nil where the process cannot write the store.
	Keep func(ctx context.Context, text, project string, tags []string) (string, error)
}

// ErrBadRequest marks an error in what a client asked, as opposed to a
// failure of the store.
var ErrBadRequest = errors.New("bad request")

func badRequest(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrBadRequest, fmt.Sprintf(format, args...))
}

// RecallRequest is one recall, as the recall tool and POST /v1/recall take
// it. Only Query is required.
type RecallRequest struct {
	Query   string `json:"query" jsonschema:"what to look for: a paraphrase of a past problem, or an exact file path, command, identifier or quoted text"`
	Limit   int    `json:"limit,omitempty" jsonschema:"how many past turns to return, best first (default 5)"`
	Mode    string `json:"mode,omitempty" jsonschema:"hybrid (default: meaning and keywords fused), semantic (meaning only) or keyword (exact words only)"`
	Project string `json:"project,omitempty" jsonschema:"only sessions of histories in this directory or below it (an absolute path, or ~/…); an unknown project is an error naming the closest indexed ones"`
	Since   string `json:"since,omitempty" jsonschema:"only sessions started at or after: a date (2026-07-17), an RFC 3339 time, or an age (36h, 7d, 2w)"`
	Until   string `json:"until,omitempty" jsonschema:"only sessions started before: a date (that day included), an RFC 3339 time, or an age"`
	Session string `json:"session,omitempty" jsonschema:"only this session: its ID, or a part only it has (such as 20260717T090000)"`
	Harness string `json:"harness,omitempty" jsonschema:"only sessions of this agent: aider, claude, codex, gemini or opencode"`
	// IncludeSubagents brings in the sessions subagents ran.
	IncludeSubagents bool `json:"include_subagents,omitempty" jsonschema:"also search sessions subagents ran (Claude Code sidechains, Codex exec and review runs), left out by default"`
	// Mine and From keep one side of a team's exchange: this machine's own
	// sessions, or those folded in from one member.
	Mine bool   `json:"mine,omitempty" jsonschema:"only this machine's own turns, none folded in from a team"`
	From string `json:"from,omitempty" jsonschema:"only turns folded in from this team member (their user name)"`
	// Here is the asking agent's project: answers say which turns are
	// from it and which from other projects.
	Here string `json:"here,omitempty" jsonschema:"your current project directory: each answer then says whether a turn is from this project or another"`
	// Commits asks for staleness by git as well as by modification
	// time (recall.Options.Commits); a hook leaves it out.
	Commits bool `json:"commits,omitempty" jsonschema:"also say when a git commit since touched a file a turn edited (one git process; by file times alone without it)"`
}

// Recall answers a request from the warm store. An error about the
// request wraps ErrBadRequest; a session the store does not hold,
// ErrNotFound.
func (m *Memory) Recall(ctx context.Context, req RecallRequest) (*recall.Answer, error) {
	if strings.TrimSpace(req.Query) == "" {
		return nil, badRequest("query is empty: say what to look for")
	}
	mode := m.Mode
	if req.Mode != "" {
		var err error
		if mode, err = recall.ParseMode(req.Mode); err != nil {
			return nil, badRequest("%v", err)
		}
	}
	limit := m.Limit
	switch {
	case req.Limit < 0:
		return nil, badRequest("limit is %d: use a positive number", req.Limit)
	case req.Limit > 0:
		limit = req.Limit
	}
	sc, err := scopeOf(req, time.Now())
	if err != nil {
		return nil, err
	}
	if sc.Harness != "" && m.Harnesses != nil && !slices.Contains(m.Harnesses, sc.Harness) {
		return nil, badRequest("harness %q: deja reads %s", sc.Harness, strings.Join(m.Harnesses, ", "))
	}
	// A session is named as 'deja recall --session' takes it: its ID, or a
	// part only it has. Scope matches whole IDs only.
	if sc.Session != "" {
		id, err := digest.ResolveSession(ctx, m.Store.Store, sc.Session)
		if errors.Is(err, store.ErrNoSession) {
			return nil, fmt.Errorf("%w: session: %v", ErrNotFound, err)
		}
		if err != nil {
			return nil, fmt.Errorf("session: %w", err)
		}
		sc.Session = id
	}
	if err := recall.CheckScope(ctx, m.Store.Store, sc); errors.Is(err, recall.ErrBadScope) {
		return nil, badRequest("%v", err)
	} else if err != nil {
		return nil, err
	}
	opts := recall.Options{Query: req.Query, Mode: mode, Scope: sc, Limit: limit, Commits: req.Commits}
	if mode != recall.Keyword {
		opts.Embedder, opts.NoEmbedder = m.Embedder, m.NoEmbedder
	}
	return m.Store.Recall(ctx, opts)
}

func scopeOf(req RecallRequest, now time.Time) (recall.Scope, error) {
	sc := recall.Scope{Session: strings.TrimSpace(req.Session), Harness: strings.TrimSpace(req.Harness), Subagents: req.IncludeSubagents,
		Mine: req.Mine, From: strings.TrimSpace(req.From)}
	if sc.Mine && sc.From != "" {
		return sc, badRequest("mine and from exclude each other: this machine's turns are from no one else")
	}
	var err error
	if sc.Since, err = recall.ParseWhen(req.Since, now, false); err != nil {
		return sc, badRequest("since: %v", err)
	}
	if sc.Until, err = recall.ParseWhen(req.Until, now, true); err != nil {
		return sc, badRequest("until: %v", err)
	}
	if p := strings.TrimSpace(req.Project); p != "" {
		if sc.Project, err = recall.ResolveProject(p); err != nil {
			return sc, badRequest("project: %v", err)
		}
	}
	return sc, nil
}
