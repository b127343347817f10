package serve

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/deja-dev/deja/quote"
)

// RelatedRequest is what the related tool takes: the agent's current task,
// the files it works on, or both.
type RelatedRequest struct {
	Task  string   `json:"task,omitempty" jsonschema:"what you are doing now, in your own words (a bug, a feature, an error message)"`
	Files []string `json:"files,omitempty" jsonschema:"the file paths you are working on (relative to the project or absolute); the past turns that edited or discussed them come back"`
	Here  string   `json:"here,omitempty" jsonschema:"your current project directory: answers say which turns are from it and which from other projects"`
	// Session is the agent's own session, left out of the answer.
	Session string `json:"session,omitempty" jsonschema:"your own session ID, if you know it: its turns are left out"`
	Limit   int    `json:"limit,omitempty" jsonschema:"how many past turns to return (default 5, at most 20)"`
}

// RelatedHit is one related turn and why it came back.
type RelatedHit struct {
	RecallHit
	// Why is "task" (it matches the task) or the file it touched.
	Why string `json:"why"`
}

// RelatedOutput is the related tool's structured content.
type RelatedOutput struct {
	Results []RelatedHit `json:"results"`
	// Notes say what found nothing (a file no turn names).
	Notes []string `json:"notes,omitempty"`
}

// maxRelated bounds a related answer, as recall's are.
const maxRelated = 20

// Related finds the past turns related to an agent's task and files: the
// task ranked as recall ranks it, then each file's turns (those that edited
// it first), each turn once, best first, the agent's own session left out.
func (m *Memory) Related(ctx context.Context, req RelatedRequest) (RelatedOutput, error) {
	out := RelatedOutput{Results: []RelatedHit{}}
	task := strings.TrimSpace(req.Task)
	var files []string
	for _, f := range req.Files {
		if f = strings.TrimSpace(f); f != "" {
			files = append(files, f)
		}
	}
	if task == "" && len(files) == 0 {
		return out, badRequest("give a task, files, or both")
	}
	limit := req.Limit
	switch {
	case limit < 0:
		return out, badRequest("limit is %d: use a positive number", limit)
	case limit == 0:
		limit = 5
	}
	limit = min(limit, maxRelated)
	seen := map[string]bool{}
	own := strings.TrimSpace(req.Session)
	add := func(query, why string) error {
		// Ask for more than needed: the agent's own turns are dropped.
		r, err := m.Recall(ctx, RecallRequest{Query: query, Limit: limit + 5})
		if err != nil {
			return err
		}
		if len(r.Results) == 0 && r.Note != "" && why != "task" {
			out.Notes = append(out.Notes, r.Note)
		}
		for _, h := range NewRecallOutput(r).Results {
			ref := TurnRef(h.SessionID, h.Turn)
			if seen[ref] || (own != "" && (h.SessionID == own || strings.HasPrefix(h.SessionID, own+"-"))) {
				continue
			}
			if len(out.Results) == limit {
				break
			}
			seen[ref] = true
			out.Results = append(out.Results, RelatedHit{RecallHit: h, Why: why})
		}
		return nil
	}
	if task != "" {
		if err := add(task, "task"); err != nil {
			return out, err
		}
	}
	for _, f := range files {
		p := relatedPath(f, req.Here)
		if err := add(p, p); err != nil {
			return out, err
		}
	}
	return out, nil
}

// relatedPath is a file as the store's records name it: relative to the
// project when it lies inside here.
func relatedPath(file, here string) string {
	if here != "" && strings.HasPrefix(file, strings.TrimSuffix(here, "/")+"/") {
		return strings.TrimPrefix(file, strings.TrimSuffix(here, "/")+"/")
	}
	return file
}

// TextFor renders the answer for an agent in the project here: each turn
// quoted as data, with why it came back, how old it is and whether it is
// from this project.
func (o RelatedOutput) TextFor(here string, now time.Time) string {
	var b strings.Builder
	if len(o.Results) == 0 {
		b.WriteString("no past turn is related")
		if len(o.Notes) > 0 {
			b.WriteString(": " + quote.Line(strings.Join(o.Notes, "; ")))
		}
		b.WriteString("\n")
		return b.String()
	}
	hits := make([]RecallHit, len(o.Results))
	for i, h := range o.Results {
		hits[i] = h.RecallHit
	}
	text := RecallOutput{Results: hits}.entries(here, now, func(i int) string {
		if o.Results[i].Why == "task" {
			return "matches the task"
		}
		return "touched " + quote.Line(o.Results[i].Why)
	})
	b.WriteString(text)
	fmt.Fprintf(&b, "(%d related past turns; show SESSION/TURN for a whole turn)\n", len(o.Results))
	return b.String()
}
