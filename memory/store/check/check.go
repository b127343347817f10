package check

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/deja-dev/deja/chunk"
	"github.com/deja-dev/deja/memory/store"
	"github.com/deja-dev/deja/memory/store/segment"
)

// maxProblems bounds what Check lists: a store damaged in one place is
// often damaged in thousands of rows, and one line says what to do.
const maxProblems = 20

// Check reads the whole store and returns what does not check out, in
// words, empty when nothing is wrong:
//
//   - SQLite's integrity_check (every page, every index entry against its
//     row) and foreign_key_check (every turn's session, every vector's
//     turn);
//   - the keyword index's own integrity-check, and its terms against
//     the turns' words;
//   - the rows of files, sessions and turns against the checksum the triggers
//     kept as they were written (ledgersum.go);
//   - each turn's question, answer, files and commands against the hash
//     they were stored with, its length against chars, and its actions
//     against its files (one a line);
//   - each embedder's segment against its checksums and the ledger's
//     length, and the vectors it holds against the ledger's rows.
//
// A row whose text changed under a flipped byte fails its hash; a page
// SQLite cannot read, or an index entry that disagrees with its row, fails
// integrity_check. The error is for a check that could not run at all
// (ctx ended).
func Check(ctx context.Context, s *store.Store) ([]string, error) {
	c := &checker{}
	for _, step := range []func() error{
		func() error { return checkSQLite(ctx, s, c) },
		func() error { return checkKeywords(ctx, s, c) },
		func() error { return checkLedgerSum(ctx, s, c) },
		func() error { return checkPathKey(ctx, s, c) },
		func() error { return checkTurns(ctx, s, c) },
		func() error { return checkSegments(ctx, s, c) },
	} {
		err := step()
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			c.add("%v", err)
		}
	}
	if c.more > 0 {
		c.problems = append(c.problems, fmt.Sprintf("and %d more", c.more))
	}
	return c.problems, nil
}

// checker gathers Check's findings, up to maxProblems.
type checker struct {
	problems []string
	more     int
}

func (c *checker) add(format string, args ...any) {
	if len(c.problems) >= maxProblems {
		c.more++
		return
	}
	c.problems = append(c.problems, fmt.Sprintf(format, args...))
}

// checkSQLite runs SQLite's own checks of the database file.
func checkSQLite(ctx context.Context, s *store.Store, c *checker) error {
	lines, err := store.QueryStrings(ctx, s.Read(), `PRAGMA integrity_check`)
	if err != nil {
		return fmt.Errorf("integrity_check: %w", err)
	}
	for _, l := range lines {
		if l != "ok" {
			c.add("deja.db: %s", l)
		}
	}
	rows, err := s.Read().QueryContext(ctx, `PRAGMA foreign_key_check`)
	if err != nil {
		return fmt.Errorf("foreign_key_check: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var table, parent string
		var rowid sql.NullInt64
		var fk int
		if err := rows.Scan(&table, &rowid, &parent, &fk); err != nil {
			return err
		}
		c.add("deja.db: a row of %s (rowid %d) names a %s row that is not there", table, rowid.Int64, parent)
	}
	return rows.Err()
}

// checkKeywords runs FTS5's check of the keyword index (written as an
// INSERT, which a read-only store cannot run), then compares the index
// with the turns' words (keywordMismatch).
func checkKeywords(ctx context.Context, s *store.Store, c *checker) error {
	if !s.ReadOnly() {
		if err := s.CheckFTS(ctx); err != nil {
			c.add("the keyword index: %v", err)
			return nil
		}
	}
	m, _, err := KeywordMismatch(ctx, s)
	if err != nil {
		return fmt.Errorf("the keyword index: %w", err)
	}
	if m != "" {
		c.add("the keyword index: %s", m)
	}
	return nil
}

// keywordMismatch says how the keyword index differs from the turns, or
// "" when it holds exactly their words, and how many term positions the
// turns hold: the index keeps no text to check
// against, so every term, turn, column and position is compared with an
// index of the turns written now, in the connection's temporary database.
// A turn without its row, a row left by a deleted turn, a turn indexed
// twice or a flipped byte in a term all show.
func KeywordMismatch(ctx context.Context, s *store.Store) (string, int, error) {
	c, err := s.ReadConn(ctx)
	if err != nil {
		return "", 0, err
	}
	defer c.Close()
	for _, stmt := range []string{
		`CREATE VIRTUAL TABLE temp.fresh_fts USING fts5(user, assistant, files, commands,
			content='', tokenize="porter unicode61 remove_diacritics 2")`,
		`INSERT INTO temp.fresh_fts(rowid, user, assistant, files, commands) SELECT id, user, assistant, files, commands FROM turns`,
		`CREATE VIRTUAL TABLE temp.have_terms USING fts5vocab(main, turns_fts, instance)`,
		`CREATE VIRTUAL TABLE temp.want_terms USING fts5vocab(temp, fresh_fts, instance)`,
	} {
		if _, err := c.ExecContext(ctx, stmt); err != nil {
			return "", 0, err
		}
	}
	defer c.ExecContext(context.WithoutCancel(ctx), `DROP TABLE temp.have_terms; DROP TABLE temp.want_terms; DROP TABLE temp.fresh_fts`)
	var extra, missing, terms int
	if err := c.QueryRowContext(ctx, `SELECT
		(SELECT count(*) FROM (SELECT * FROM temp.have_terms EXCEPT SELECT * FROM temp.want_terms)),
		(SELECT count(*) FROM (SELECT * FROM temp.want_terms EXCEPT SELECT * FROM temp.have_terms)),
		(SELECT count(*) FROM temp.want_terms)`).Scan(&extra, &missing, &terms); err != nil {
		return "", 0, err
	}
	if extra != 0 || missing != 0 {
		return fmt.Sprintf("it holds %d term positions no turn has and lacks %d of the turns' %d", extra, missing, terms), terms, nil
	}
	return "", terms, nil
}

// checkLedgerSum adds up the checksum of the files', sessions' and turns' rows
// and compares it with the one kept as they were written.
func checkLedgerSum(ctx context.Context, s *store.Store, c *checker) error {
	var kept string
	if err := s.Read().QueryRowContext(ctx, `SELECT value FROM meta WHERE key = ?`, store.LedgerKey).Scan(&kept); err != nil {
		return fmt.Errorf("reading the ledger's checksum: %w", err)
	}
	sum, err := store.LedgerSum(ctx, s.Read())
	if err != nil {
		return fmt.Errorf("adding up the ledger's checksum: %w", err)
	}
	if sum != kept {
		c.add("deja.db: the histories', sessions' and turns' rows do not add up to the checksum kept as they were written: a row changed outside deja")
	}
	return nil
}

// checkPathKey checks the key of history paths (meta's path_key, which
// the ledger's checksum does not cover: it lives beside that checksum)
// has the form deja made it in, 32 random bytes in lower-case hex: a
// damaged key keys every history path anew, so the next index would read
// each history as new.
func checkPathKey(ctx context.Context, s *store.Store, c *checker) error {
	var v string
	err := s.Read().QueryRowContext(ctx, `SELECT value FROM meta WHERE key = 'path_key'`).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return nil // a store that never indexed has no key yet
	}
	if err != nil {
		return fmt.Errorf("reading the key of history paths: %w", err)
	}
	if len(v) != 64 || strings.Trim(v, "0123456789abcdef") != "" {
		c.add("deja.db: the key of history paths is damaged")
	}
	return nil
}

// checkTurns reads every turn and checks its text against the hash it was
// stored with. A turn from a team member carries the hash its author's
// deja sent; only this machine's own are held to it.
func checkTurns(ctx context.Context, s *store.Store, c *checker) error {
	rows, err := s.Read().QueryContext(ctx, `SELECT t.session_id, t.turn, t.hash, t.user, t.assistant, t.files, t.commands, t.actions, t.chars,
		s.path LIKE '`+store.TeamPathPrefix+`%', coalesce(unpack(w.work), '')
		FROM turns t JOIN sessions s ON s.id = t.session_id LEFT JOIN turn_work w ON w.turn_id = t.id`)
	if err != nil {
		return fmt.Errorf("reading the turns: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var session, hash, user, assistant, files, commands, actions, work string
		var turn, chars int
		var team bool
		if err := rows.Scan(&session, &turn, &hash, &user, &assistant, &files, &commands, &actions, &chars, &team, &work); err != nil {
			return fmt.Errorf("reading the turns: %w", err)
		}
		ref := store.TurnRef(session, turn)
		t := chunk.Turn{User: user, Assistant: assistant, Files: []string{files}, Commands: []string{commands}, Work: chunk.DecodeWork(work)}
		switch {
		case !team && t.Hash() != hash:
			c.add("turn %s: its text does not match the hash it was stored with", ref)
		case store.Characters(user)+store.Characters(assistant) != chars:
			c.add("turn %s: its length is not the one it was stored with", ref)
		case actions != "" && strings.Count(actions, "\n") != strings.Count(files, "\n"):
			c.add("turn %s: its actions do not match its files", ref)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("reading the turns: %w", err)
	}
	return nil
}

// checkSegments reads each embedder's segment through, checksums and all
// (its layout: the keys, not the floats), and compares the vectors it
// holds with the ledger's.
func checkSegments(ctx context.Context, s *store.Store, c *checker) error {
	identities, err := store.QueryStrings(ctx, s.Read(), `SELECT embedder FROM segments`)
	if err != nil {
		return fmt.Errorf("reading the vector segments: %w", err)
	}
	for _, identity := range identities {
		row, ok, err := segment.ReadSegmentRow(ctx, s.Read(), identity)
		if err != nil {
			return err
		}
		f, l, err := segment.OpenLayout(filepath.Join(s.Dir(), segment.VectorDir, row.File), row, ok)
		if f != nil {
			f.Close()
		}
		set := l.Set
		if errors.Is(err, segment.ErrSegmentDamaged) {
			c.add("the vectors of %s: %v", identity, err)
			continue
		}
		if err != nil {
			return err
		}
		if err := checkLedger(ctx, s, c, identity, set); err != nil {
			return err
		}
	}
	return nil
}

// checkLedger compares the vectors a segment holds with the ledger's rows
// of flushed vectors for the embedder: each vector held must be one the
// ledger names. (The ledger may name more: a chunk with no semantic
// signal has a row and no vector.)
func checkLedger(ctx context.Context, s *store.Store, c *checker, identity string, set *segment.VectorSet) error {
	held := make(map[segment.VectorKey]bool, set.Len())
	for _, k := range set.Keys {
		held[k] = true
	}
	rows, err := s.Read().QueryContext(ctx, `SELECT turn_id, part FROM vectors WHERE embedder = ? AND vec IS NULL`, identity)
	if err != nil {
		return fmt.Errorf("reading the vectors' ledger: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var k segment.VectorKey
		if err := rows.Scan(&k.TurnID, &k.Part); err != nil {
			return err
		}
		delete(held, k)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if len(held) > 0 {
		c.add("the vectors of %s: the segment holds %d vectors the ledger does not name", identity, len(held))
	}
	return nil
}
