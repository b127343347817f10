package store

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/internal/lazyre"
	"github.com/deja-dev/deja/memory/redact"
)

// A history's own path may hold a secret: Claude Code names a project's
// folder after its cwd (~/.claude/projects/-home-u-sk_live_…-app/), and
// people name files after what they hold. The store keeps such a path
// (files, sessions and tombstones rows, and so every answer that shows
// a session's history) in a form that holds no secret: its redaction,
// then a digest of the path under a key of the store's own, which keeps
// two histories apart and lets each run, which finds the real path
// again, find its rows. A path redaction leaves alone is kept as it is,
// unless it spells a session's cwd that holds a secret: Claude Code's
// folder name keeps only the cwd's letters and digits, which hides the
// words that mark a secret ("--password", "WITH PASSWORD '…'"), so the
// run that reads such a cwd marks its history's path (notePathSecret),
// and the store keeps the mark, under the path's digest, for later runs.
//
// The key lives in the store (meta), so it does not hide a guessable
// secret from whoever reads the store; it keeps the digest from being
// looked up in a table made for every store. The secrets redaction finds
// in a path are tokens and keys, not words.

// pathKeyName is the meta row of the key.
const pathKeyName = "path_key"

// pathMarkPrefix begins the meta rows of marked paths: the digest after
// it, the path as shown in the value.
const pathMarkPrefix = "path_secret:"

// keyedPathMark sits between a path's redaction and its digest.
const keyedPathMark = "#deja-"

// keyedPath matches a path the store keeps in its keyed form.
var keyedPath = lazyre.New(keyedPathMark + `[0-9a-f]{24}$`)

// loadPathKey reads the store's key for history paths, making it the
// first time a store indexes.
func (s *Store) LoadPathKey(ctx context.Context) error {
	var v string
	err := s.db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = ?`, pathKeyName).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		if _, err = s.db.ExecContext(ctx, `INSERT OR IGNORE INTO meta(key, value) VALUES (?, lower(hex(randomblob(32))))`, pathKeyName); err != nil {
			return fmt.Errorf("store: making the key of history paths: %w", diskHint(err))
		}
		err = s.db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = ?`, pathKeyName).Scan(&v)
	}
	if err != nil {
		return fmt.Errorf("store: reading the key of history paths: %w", err)
	}
	key, err := hex.DecodeString(v)
	if err != nil || len(key) == 0 {
		return fmt.Errorf("store: the key of history paths is damaged (%q): '%s' rebuilds the store", v, RebuildCommand)
	}
	marks := map[string]string{}
	rows, err := s.db.QueryContext(ctx, `SELECT substr(key, ?), value FROM meta WHERE substr(key, 1, ?) = ?`, len(pathMarkPrefix)+1, len(pathMarkPrefix), pathMarkPrefix)
	if err != nil {
		return fmt.Errorf("store: reading the marks of history paths: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var d, shown string
		if err := rows.Scan(&d, &shown); err != nil {
			return fmt.Errorf("store: reading the marks of history paths: %w", err)
		}
		marks[d] = shown
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("store: reading the marks of history paths: %w", err)
	}
	s.mu.Lock()
	s.pathKey, s.pathMarks, s.rowPaths = key, marks, map[string]string{}
	s.mu.Unlock()
	return nil
}

// pathDigest is the keyed digest of path.
func (s *Store) pathDigest(path string) string {
	s.mu.Lock()
	mac := hmac.New(sha256.New, s.pathKey)
	s.mu.Unlock()
	mac.Write([]byte(path))
	return hex.EncodeToString(mac.Sum(nil)[:12])
}

// notePathSecret marks the history at path when one of its sessions, as
// parsed, worked in a cwd that holds a secret and the path spells that
// cwd, as it is or as Claude Code names a project's folder. The mark
// lives in memory until putFileState keeps it with the history's row.
func (s *Store) NotePathSecret(path string, sessions []harness.Session) {
	for _, sess := range sessions {
		red, n := RedactPath(sess.Project)
		if n == 0 {
			continue
		}
		shown, _ := RedactPath(path)
		for _, form := range [][2]string{{sess.Project, red}, {ClaudeFolder(sess.Project), ClaudeFolder(red)}} {
			shown = strings.ReplaceAll(shown, form[0], form[1])
		}
		if shown == path {
			continue
		}
		d := s.pathDigest(path)
		s.mu.Lock()
		s.pathMarks[d] = shown
		delete(s.rowPaths, path)
		s.mu.Unlock()
	}
}

// claudeFolder is the name Claude Code gives the project folder of cwd:
// every character but an ASCII letter or digit becomes "-".
func ClaudeFolder(cwd string) string {
	return strings.Map(func(r rune) rune {
		if r < 128 && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			return r
		}
		return '-'
	}, cwd)
}

// keepPathMark keeps in tx the mark of the history at path, if it has
// one, and moves the rows a store made before the mark (a files row
// tracked ahead of the run, the sessions and tombstones of an older
// deja) to the path's keyed form.
func (s *Store) keepPathMark(ctx context.Context, tx *sql.Tx, path string) error {
	row := s.RowPath(path)
	if row == path {
		return nil
	}
	d := s.pathDigest(path)
	s.mu.Lock()
	shown, marked := s.pathMarks[d]
	s.mu.Unlock()
	if marked {
		if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)`, pathMarkPrefix+d, shown); err != nil {
			return err
		}
	}
	for _, q := range []string{
		`DELETE FROM files WHERE path = ?2 AND EXISTS (SELECT 1 FROM files WHERE path = ?1)`,
		`UPDATE files SET path = ?1 WHERE path = ?2`,
		`UPDATE sessions SET path = ?1 WHERE path = ?2`,
		`UPDATE tombstones SET path = ?1 WHERE path = ?2`,
	} {
		if _, err := tx.ExecContext(ctx, q, row, path); err != nil {
			return err
		}
	}
	return nil
}

// rowPath is the form in which the store keeps the history at path (see
// above); an index run reads the key first (loadPathKey). It is worked
// out once a path: a run asks for each session of a history.
func (s *Store) RowPath(path string) string {
	s.mu.Lock()
	row, ok := s.rowPaths[path]
	s.mu.Unlock()
	if ok {
		return row
	}
	d := s.pathDigest(path)
	s.mu.Lock()
	shown, marked := s.pathMarks[d]
	s.mu.Unlock()
	row = path
	if !marked {
		shown, _ = RedactPath(path)
	}
	if shown != path {
		row = shown + keyedPathMark + d
	}
	s.mu.Lock()
	s.rowPaths[path] = row
	s.mu.Unlock()
	return row
}

// redactPath is path redacted name by name, each name a value of its
// own (a file's name without its extension too), then as a whole: a URL
// or a DSN spans its slashes. It returns how many secrets it removed.
func RedactPath(path string) (string, int) {
	names := strings.Split(path, "/")
	removed := 0
	for i, name := range names {
		ext := filepath.Ext(name)
		if !fileExt.MatchString(ext) {
			ext = ""
		}
		stem, n := redact.Text(strings.TrimSuffix(name, ext))
		if n == 0 {
			stem, n = redact.Text(name)
			ext = ""
		}
		names[i] = stem + ext
		removed += n
	}
	red, n := redact.Text(strings.Join(names, "/"))
	return red, removed + n
}

// fileExt matches what ends a file's name as its type: ".jsonl", ".md".
var fileExt = lazyre.New(`^\.[A-Za-z0-9]{1,8}$`)

// rowDir is the files row's project of the history at path: the
// directory of its kept form.
func (s *Store) rowDir(path string) string { return filepath.Dir(s.RowPath(path)) }

// isKeyedPath reports whether p, a path the store keeps, is a keyed form
// rather than a path a run can open.
func isKeyedPath(p string) bool { return keyedPath.MatchString(p) }
