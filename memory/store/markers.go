package store

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/deja-dev/deja/chunk"
	"github.com/deja-dev/deja/harness"
)

// sessionProject is where a session's turns are filed: the directory the
// agent worked in (see withProject).
func SessionProject(s harness.Session) string {
	if s.Project == "" {
		// A prompt of a prompt history that names no project.
		return ""
	}
	return filepath.Clean(s.Project)
}

// turnActions is the actions column: one action a line, beside files.
func turnActions(t chunk.Turn) string {
	parts := make([]string, len(t.Actions))
	for i, a := range t.Actions {
		parts[i] = string(a)
	}
	return strings.Join(parts, "\n")
}

// turnTime is the time_ns column: NULL when the harness gave no time.
func turnTime(t chunk.Turn) any {
	if t.Time.IsZero() {
		return nil
	}
	return t.Time.UnixNano()
}

type sessionMarker struct {
	Marker  string
	Present bool
}

func (s *Store) SessionMarkers(ctx context.Context, path string) (map[string]sessionMarker, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, marker, present FROM sessions WHERE path = ?`, path)
	if err != nil {
		return nil, fmt.Errorf("store: reading the ledger: %w", err)
	}
	defer rows.Close()
	out := map[string]sessionMarker{}
	for rows.Next() {
		var id string
		var m sessionMarker
		if err := rows.Scan(&id, &m.Marker, &m.Present); err != nil {
			return nil, err
		}
		out[id] = m
	}
	return out, rows.Err()
}
