package memory

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/deja-dev/deja/aider"
	"github.com/deja-dev/deja/chunk"
	"github.com/deja-dev/deja/harness"
)

// sniffBytes is how much of a new file the harnesses see to claim it.
const sniffBytes = 8192

// reader returns the harness that reads the file: the one that read it
// before, else the first that claims it. A file whose harness is switched
// off is left alone: nil, nil.
func (ix *indexer) reader(path string, st fileState, fi fs.FileInfo) (harness.Reader, error) {
	reg := ix.opts.Harnesses
	if reg == nil {
		reg = harness.Registry{aider.Reader{}}
	}
	if st.known && st.harness != "" {
		return reg.Lookup(st.harness), nil
	}
	var head []byte
	if !fi.IsDir() {
		// A directory has no head; a harness that reads one (OpenCode's
		// storage tree) looks at it by its path.
		var err error
		if head, err = readHead(path); err != nil {
			return nil, fmt.Errorf("%s: %v, skipped", path, unwrapPath(err))
		}
	}
	h, err := reg.Detect(path, head)
	if err != nil {
		return nil, fmt.Errorf("%s: %v, skipped", path, err)
	}
	return h, nil
}

// readHead returns the file's first sniffBytes.
func readHead(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	head := make([]byte, sniffBytes)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return head[:n], nil
}

// sessionProject is where a session's turns are filed: the directory the
// agent worked in (see withProject).
func sessionProject(s harness.Session) string { return filepath.Clean(s.Project) }

// withProject gives a session of a harness that records no working
// directory (aider) the directory of its history as its project.
func withProject(s harness.Session, path string) harness.Session {
	if s.Project == "" {
		s.Project = filepath.Dir(path)
	}
	return s
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

// touchTurns brings the actions and times of stored turns up to date
// where their content did not change, so a store written before the
// harness recorded them gains them without re-embedding.
func touchTurns(ctx context.Context, tx *sql.Tx, sessions []harness.Session) error {
	stmt, err := tx.PrepareContext(ctx, `UPDATE turns SET actions = ?, time_ns = ?
		WHERE session_id = ? AND turn = ? AND (actions != ? OR time_ns IS NOT ?)`)
	if err != nil {
		return err
	}
	defer stmt.Close()
	for _, sess := range sessions {
		for _, t := range chunk.Turns(sess) {
			a, tm := turnActions(t), turnTime(t)
			if _, err := stmt.ExecContext(ctx, a, tm, sess.ID, t.Index, a, tm); err != nil {
				return err
			}
		}
	}
	return nil
}

// whole indexes a store a WholeReader reads whole: sessions whose marker
// changed are stored again, sessions that left it stay, as they stay when
// they leave a file.
func (ix *indexer) whole(ctx context.Context, path string, wr harness.WholeReader, fi fs.FileInfo) error {
	hist, err := wr.Read(ctx, path, harness.ParseOptions{Path: path, Location: ix.opts.Location})
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			ix.rep.Missing++
			return nil
		}
		return fmt.Errorf("%s: %v, skipped", path, err)
	}
	ix.rep.Read++
	markers, err := ix.s.sessionMarkers(ctx, path)
	if err != nil {
		return err
	}
	tomb, err := ix.s.tombstones(ctx, path)
	if err != nil {
		return err
	}
	var sessions []harness.Session
	parsed := map[string]bool{}
	for _, sess := range hist.Sessions {
		parsed[sess.ID] = true
		if tomb[sess.ID] {
			continue
		}
		if m, ok := markers[sess.ID]; ok && m.marker == sess.Marker && m.present && sess.Marker != "" && !ix.opts.Full {
			continue
		}
		sess = withProject(sess, path)
		ix.rep.Redacted += redactSession(&sess)
		sessions = append(sessions, sess)
	}
	pending, changedSessions, err := ix.changedTurns(ctx, sessions)
	if err != nil {
		return err
	}
	ix.embedTurns(ctx, pending)
	next := fileState{size: fi.Size(), mtime: fi.ModTime().UnixNano(), lastOrdinal: 1, fingerprint: fingerprint(nil), harness: wr.Name()}
	err = ix.s.write(ctx, func(tx *sql.Tx) error {
		for _, sess := range sessions {
			if err := upsertSession(ctx, tx, path, wr.Name(), sess); err != nil {
				return err
			}
		}
		for id, m := range markers {
			if !parsed[id] && m.present {
				if _, err := tx.ExecContext(ctx, `UPDATE sessions SET present = 0 WHERE id = ?`, id); err != nil {
					return err
				}
			}
		}
		for _, sess := range sessions {
			if err := pruneTurns(ctx, tx, sess.ID, chunk.Turns(sess)); err != nil {
				return err
			}
		}
		if err := ix.writeTurns(ctx, tx, pending); err != nil {
			return err
		}
		if err := touchTurns(ctx, tx, sessions); err != nil {
			return err
		}
		return putFileState(ctx, tx, path, next)
	})
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	ix.rep.Sessions += changedSessions
	ix.rep.NewTurns += len(pending)
	return nil
}

type sessionMarker struct {
	marker  string
	present bool
}

func (s *Store) sessionMarkers(ctx context.Context, path string) (map[string]sessionMarker, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, marker, present FROM sessions WHERE path = ?`, path)
	if err != nil {
		return nil, fmt.Errorf("store: reading the ledger: %w", err)
	}
	defer rows.Close()
	out := map[string]sessionMarker{}
	for rows.Next() {
		var id string
		var m sessionMarker
		if err := rows.Scan(&id, &m.marker, &m.present); err != nil {
			return nil, err
		}
		out[id] = m
	}
	return out, rows.Err()
}
