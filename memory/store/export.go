package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"fmt"
	"github.com/deja-dev/deja/chunk"
	"strings"

	"github.com/deja-dev/deja/harness"
)

// teamSchema holds what team memory adds to a store, created when a team
// first syncs, so a store that never shares carries none of it and the
// schema version stays as it is:
//
//   - team_sessions: every session this store shared or received, with
//     the subject it travels on and, for a received one, who it came from
//     (origin is empty for this machine's own sessions). It outlives a
//     forget, so the tombstone can be sent on the session's subject.
//   - team_received: the stream sequence of the last version of each
//     received turn, so an older version delivered again after a newer
//     one does not replace it.
//   - team_sent: the hash of each turn as last published, so a sync
//     publishes exactly the turns that are new or changed since.
//   - team_tombstones: the subjects of sessions their members forgot,
//     so a turn published there later is dropped; a session is forgotten
//     by its subject, as only its member can publish there.
const teamSchema = `
CREATE TABLE IF NOT EXISTS team_sessions (
	session_id     TEXT PRIMARY KEY,
	subject        TEXT NOT NULL,
	origin         TEXT NOT NULL DEFAULT '',
	user           TEXT NOT NULL DEFAULT '',
	tombstone_sent INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS team_received (
	session_id TEXT NOT NULL,
	turn       INTEGER NOT NULL,
	seq        INTEGER NOT NULL,
	PRIMARY KEY (session_id, turn)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS team_tombstones (
	subject   TEXT PRIMARY KEY,
	forgotten INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS team_sent (
	session_id TEXT NOT NULL,
	turn       INTEGER NOT NULL,
	hash       TEXT NOT NULL,
	PRIMARY KEY (session_id, turn)
) WITHOUT ROWID;
`

func (s *Store) teamTables(ctx context.Context) error {
	if _, err := s.db.ExecContext(ctx, teamSchema); err != nil {
		return fmt.Errorf("store: creating the team tables: %w", diskHint(err))
	}
	return nil
}

// MaxSharedWork bounds a shared turn's work encoded: a team's messages
// have a size limit (NATS's default payload is 1 MB), and a turn of many
// whole-file edits would pass it and fail every publish.
const MaxSharedWork = 128 << 10

// SharedTurn is one stored turn with the facts of its session, as team
// memory sends it. Its texts are the store's, so already redacted.
type SharedTurn struct {
	Session  string   `json:"session"`
	Project  string   `json:"project"`
	Harness  string   `json:"harness"`
	Started  string   `json:"started,omitempty"`
	Parent   string   `json:"parent,omitempty"`
	Subagent bool     `json:"subagent,omitempty"`
	Turn     int      `json:"turn"`
	Line     int      `json:"line"`
	Hash     string   `json:"hash"`
	User     string   `json:"user"`
	Assist   string   `json:"assistant"`
	Files    []string `json:"files,omitempty"`
	Commands []string `json:"commands,omitempty"`
	Actions  string   `json:"actions,omitempty"`
	TimeNS   int64    `json:"time_ns,omitempty"`
	// Work is the turn's command outcomes and edit spans, where its
	// harness recorded them.
	Work *chunk.Work `json:"work,omitempty"`
	// Row is the turn's place in this store, for paging; it is not sent.
	Row int64 `json:"-"`
}

// ValidIDs reports a turn whose session and parent IDs are in the alphabet
// every harness's IDs keep to (harness.SafeID), and whose harness is named
// in letters, digits, '_' and '-': a turn another member sent is folded in
// only then, as a session whose ID is not of its harness's shape is not
// indexed here.
func (t SharedTurn) ValidIDs() bool {
	return harness.SafeID(t.Session) && (t.Parent == "" || harness.SafeID(t.Parent)) && harness.IsToken(t.Harness)
}

// projectWhere matches sessions of a project directory or one below it.
func projectWhere(projects []string) (string, []any) {
	var or []string
	var args []any
	for _, p := range projects {
		or = append(or, `(s.project = ? OR substr(s.project, 1, ?) = ?)`)
		args = append(args, p, len(p)+1, strings.TrimSuffix(p, "/")+"/")
	}
	return "(" + strings.Join(or, " OR ") + ")", args
}

// UnsentTurns returns up to limit turns of this machine's sessions in the
// given projects that are new or changed since MarkSent last recorded
// them, in store order, after the turn whose Row is after (0: from the
// start). Sessions received from a team are never returned:
// only their origin publishes them.
func (s *Store) UnsentTurns(ctx context.Context, projects []string, after int64, limit int) ([]SharedTurn, error) {
	if len(projects) == 0 {
		return nil, nil
	}
	if err := s.teamTables(ctx); err != nil {
		return nil, err
	}
	where, args := projectWhere(projects)
	rows, err := s.db.QueryContext(ctx, `
		SELECT t.id, s.id, s.project, s.harness, coalesce(s.started, ''), s.parent, s.subagent,
			t.turn, t.line, t.hash, t.user, t.assistant, t.files, t.commands, t.actions, coalesce(t.time_ns, 0),
			coalesce(unpack(w.work), '')
		FROM turns t JOIN sessions s ON s.id = t.session_id
		LEFT JOIN turn_work w ON w.turn_id = t.id
		LEFT JOIN team_sent ts ON ts.session_id = t.session_id AND ts.turn = t.turn
		WHERE t.id > ? AND `+where+` AND (ts.hash IS NULL OR ts.hash != t.hash)
			AND NOT EXISTS (SELECT 1 FROM team_sessions r WHERE r.session_id = s.id AND r.origin != '')
		ORDER BY t.id LIMIT ?`, append(append([]any{after}, args...), limit)...)
	if err != nil {
		return nil, fmt.Errorf("store: reading turns to share: %w", err)
	}
	defer rows.Close()
	var out []SharedTurn
	for rows.Next() {
		var t SharedTurn
		var files, commands, work string
		if err := rows.Scan(&t.Row, &t.Session, &t.Project, &t.Harness, &t.Started, &t.Parent, &t.Subagent,
			&t.Turn, &t.Line, &t.Hash, &t.User, &t.Assist, &files, &commands, &t.Actions, &t.TimeNS, &work); err != nil {
			return nil, err
		}
		t.Files, t.Commands = SplitLines(files), SplitLines(commands)
		if w := chunk.DecodeWork(work); !w.Empty() {
			w = w.Shrunk(MaxSharedWork)
			t.Work = &w
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// MarkSent records turns as published on their sessions' subjects, so
// UnsentTurns leaves them out until they change and a forget of their
// session sends a tombstone there.
func (s *Store) MarkSent(ctx context.Context, turns []SharedTurn, subject func(SharedTurn) string) error {
	if err := s.teamTables(ctx); err != nil {
		return err
	}
	return s.write(ctx, func(tx *sql.Tx) error {
		for _, t := range turns {
			if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO team_sent(session_id, turn, hash) VALUES (?, ?, ?)`, t.Session, t.Turn, t.Hash); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO team_sessions(session_id, subject) VALUES (?, ?)`, t.Session, subject(t)); err != nil {
				return err
			}
		}
		return nil
	})
}

// SharedTombstone is a forgotten session that was shared or received and
// whose tombstone the team has not been sent yet.
type SharedTombstone struct {
	Session string `json:"session"`
	Subject string `json:"subject"`
}

// UnsentTombstones lists the forgotten sessions this machine published
// whose tombstones the team has not been sent. A forget of a session
// received from another member stays here: only the member who published
// a session can forget it for the team.
func (s *Store) UnsentTombstones(ctx context.Context) ([]SharedTombstone, error) {
	if err := s.teamTables(ctx); err != nil {
		return nil, err
	}
	rows, err := s.db.QueryContext(ctx, `
		SELECT ts.session_id, ts.subject FROM team_sessions ts JOIN tombstones t ON t.session_id = ts.session_id
		WHERE ts.tombstone_sent = 0 AND ts.origin = '' ORDER BY ts.session_id`)
	if err != nil {
		return nil, fmt.Errorf("store: reading tombstones to share: %w", err)
	}
	defer rows.Close()
	var out []SharedTombstone
	for rows.Next() {
		var t SharedTombstone
		if err := rows.Scan(&t.Session, &t.Subject); err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// MarkTombstoneSent records that the team has a session's tombstone.
func (s *Store) MarkTombstoneSent(ctx context.Context, session string) error {
	if err := s.teamTables(ctx); err != nil {
		return err
	}
	return s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE team_sessions SET tombstone_sent = 1 WHERE session_id = ?`, session)
		return err
	})
}

// TeamCounts says how much of the store a team shares: sessions and turns
// this machine published, and sessions and turns received from others.
type TeamCounts struct {
	SentSessions     int `json:"sent_sessions"`
	SentTurns        int `json:"sent_turns"`
	ReceivedSessions int `json:"received_sessions"`
	ReceivedTurns    int `json:"received_turns"`
	Tombstones       int `json:"tombstones_sent"`
}

// TeamCounts counts what the store has shared and received.
func (s *Store) TeamCounts(ctx context.Context) (TeamCounts, error) {
	var c TeamCounts
	if err := s.teamTables(ctx); err != nil {
		return c, err
	}
	err := s.db.QueryRowContext(ctx, `SELECT
		(SELECT count(*) FROM team_sessions WHERE origin = ''),
		(SELECT count(*) FROM team_sent),
		(SELECT count(*) FROM team_sessions r JOIN sessions s ON s.id = r.session_id WHERE r.origin != ''),
		(SELECT count(*) FROM team_sessions r JOIN turns t ON t.session_id = r.session_id WHERE r.origin != ''),
		(SELECT count(*) FROM team_sessions WHERE tombstone_sent = 1)`).
		Scan(&c.SentSessions, &c.SentTurns, &c.ReceivedSessions, &c.ReceivedTurns, &c.Tombstones)
	if err != nil {
		return c, fmt.Errorf("store: counting team turns: %w", err)
	}
	return c, nil
}

// TeamMachine names this store to its team: the host name and a random
// suffix chosen once, so two stores on one host are two members.
func (s *Store) TeamMachine(ctx context.Context, host string) (string, error) {
	var m string
	err := s.db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = 'team_machine'`).Scan(&m)
	if err == nil {
		return m, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return "", fmt.Errorf("store: reading the team machine name: %w", err)
	}
	var b [3]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	m = fmt.Sprintf("%s-%x", host, b)
	if _, err := s.db.ExecContext(ctx, `INSERT OR IGNORE INTO meta(key, value) VALUES ('team_machine', ?)`, m); err != nil {
		return "", fmt.Errorf("store: naming this machine to the team: %w", diskHint(err))
	}
	return s.TeamMachine(ctx, host)
}
