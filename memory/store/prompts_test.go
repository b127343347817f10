package store

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// planOf is SQLite's plan for query, its steps joined.
func planOf(t *testing.T, s *Store, query string) string {
	t.Helper()
	rows, err := s.db.QueryContext(context.Background(), "EXPLAIN QUERY PLAN "+query)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var steps []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		steps = append(steps, detail)
	}
	return strings.Join(steps, "; ")
}

// TestStoredPromptsReadTheirIndex: every index run reads the stored
// prompt sessions, and it reads them through sessions_prompts, not
// through every session's ID, in a new store and in one upgraded from
// schema 9.
func TestStoredPromptsReadTheirIndex(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "store")
	s, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	if plan := planOf(t, s, storedPromptsQuery); !strings.Contains(plan, "sessions_prompts") {
		t.Errorf("a new store reads the prompt sessions by %q, not through sessions_prompts", plan)
	}
	for _, stmt := range []string{`DROP INDEX sessions_prompts`, `UPDATE meta SET value = '9' WHERE key = 'schema'`} {
		if _, err := s.db.ExecContext(ctx, stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	if plan := planOf(t, s, storedPromptsQuery); strings.Contains(plan, "sessions_prompts") {
		t.Fatalf("the plan %q names the index just dropped", plan)
	}
	s.Close()
	s, err = Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if plan := planOf(t, s, storedPromptsQuery); !strings.Contains(plan, "sessions_prompts") {
		t.Errorf("a store upgraded from schema 9 reads the prompt sessions by %q, not through sessions_prompts", plan)
	}
	var v string
	if err := s.db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = 'schema'`).Scan(&v); err != nil || v != SchemaVersion {
		t.Errorf("schema %q (%v) after the upgrade, want %s", v, err, SchemaVersion)
	}
}
