package store

// schemaVersion is stored in meta; a store written by another version is
// refused with a message rather than misread.
const SchemaVersion = "10"

// schema is the whole store. Everything a recall needs is here, so a
// SIGKILL between two transactions leaves a consistent store:
//
//   - files: one row per history file, with what the next index needs to
//     read only the new bytes (size, mtime, where the last session starts and
//     the SHA-256 of every byte before it).
//   - sessions and turns: the ledger; turns hold the text shown by recall.
//     turns is a view of turn_rows, whose questions and answers are
//     packed (pack.go); readers read turns, writers write turn_rows.
//   - turns_fts: contentless FTS5 over turns for BM25 keyword recall: the
//     writers insert a batch's rows in one statement (keywordBatch), a
//     trigger deletes a deleted turn's row; the porter+unicode61 tokenizer
//     cuts paths, commands and identifiers into words that phrase queries
//     match in order. The text itself is read from turns.
//   - vectors: one row per chunk vector of each turn per embedder
//     identity, clustered by turn. The floats live in the
//     embedder's segment file (segment.go); until the writing transaction
//     flushes them there they wait in its memory (pendingFloats), and vec
//     is an empty blob (NULL once flushed). A pending vector with no floats is a chunk
//     with no semantic signal (a zero vector), which never matches.
//   - tombstones: forgotten session IDs that indexing must not bring back.
//
// Harnesses (schema 3): files and sessions name the harness that reads
// them; sessions carry the parent they were resumed, forked or spawned
// from, whether a subagent ran them (out of default recall) and a
// WholeReader's change marker; turns carry each file's action (edited,
// added, read), one a line beside files, and the time of the turn's first
// message where the harness records one.
//
// Resumable --full (schema 4): files.full_pending marks a history that
// 'deja index --full' has yet to re-read whole and re-embed; a history
// first named by a run that has not read it yet has size -1.
//
// Vector segments (schema 6): the floats move out of vectors into
// vectors/*.seg (see segment.go); sessions_subagents lets an unscoped
// keyword recall ask whether any subagent session exists without a scan.
//
// Packed turns (schema 7): turns becomes the view of turn_rows, with
// long questions and answers deflated; turns_fts holds no copy of the text
// (contentless, deleting by rowid); pending floats leave the ledger row,
// whose pages the flush used to leave four fifths empty when it cleared
// them, and wait in the writer's memory (vector_floats only holds those of
// a store being upgraded, for the upgrade's flush); the ledger keeps a vector's turn,
// embedder and part alone, clustered by turn, as the project, session and
// turn number it repeated are the turn's (and the segment's).
//
// Ledger checksum (schema 8): meta's 'ledger' row is the XOR of a hash
// of every row of files, sessions and turn_rows, kept by triggers (ledgersum.go),
// so that Check finds a row that changed outside deja.
//
// Work (schema 9): turn_work holds, for a turn whose harness recorded
// them, the outcomes of its commands and the spans of its edits
// (chunk.Work as JSON, deflated like a turn's text where that pays, and
// its end apart), one row per turn that has any, deleted with its turn;
// the ledger's checksum covers it. A store of schema 8 gains the empty table: its turns gain
// work when their histories are read again ('deja index --full').
//
// Prompt sessions indexed (schema 10): sessions_prompts lists the
// sessions made of one prompt of a prompt history (<harness>-prompt-<hash>,
// harness.PromptID), which every index run reads (StoredPrompts): without
// it, that read went through every session's ID, a cost each run paid in
// proportion to the store, however little it had to index.
//
// Keyword rows in bulk (schema 5): no insert trigger on turns; whoever
// inserts turns gives them their turns_fts rows (keywordBatch). A store of
// schema 4 loses its trigger, and an older deja, which relies on it,
// refuses the store instead of writing turns no keyword recall finds.
var schema = `
CREATE TABLE IF NOT EXISTS meta (
	key   TEXT PRIMARY KEY,
	value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS files (
	path         TEXT PRIMARY KEY,
	project      TEXT NOT NULL,
	size         INTEGER NOT NULL,
	mtime_ns     INTEGER NOT NULL,
	last_offset  INTEGER NOT NULL,
	last_ordinal INTEGER NOT NULL,
	fingerprint  BLOB NOT NULL,
	indexed_at   INTEGER NOT NULL,
	harness      TEXT NOT NULL DEFAULT 'aider',
	full_pending INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS sessions (
	id         TEXT PRIMARY KEY,
	path       TEXT NOT NULL,
	project    TEXT NOT NULL,
	ordinal    INTEGER NOT NULL,
	started    TEXT,
	started_ns INTEGER,
	header     TEXT NOT NULL,
	offset     INTEGER NOT NULL,
	end_offset INTEGER NOT NULL,
	present    INTEGER NOT NULL DEFAULT 1,
	harness    TEXT NOT NULL DEFAULT 'aider',
	parent     TEXT NOT NULL DEFAULT '',
	subagent   INTEGER NOT NULL DEFAULT 0,
	marker     TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS sessions_path ON sessions(path, offset);
CREATE INDEX IF NOT EXISTS sessions_started ON sessions(started_ns);
CREATE INDEX IF NOT EXISTS sessions_project ON sessions(project);
CREATE INDEX IF NOT EXISTS sessions_subagents ON sessions(subagent) WHERE subagent = 1;
` + promptsSchema + `
CREATE TABLE IF NOT EXISTS turn_rows (
	id         INTEGER PRIMARY KEY,
	session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
	turn       INTEGER NOT NULL,
	line       INTEGER NOT NULL,
	hash       TEXT NOT NULL,
	user       TEXT NOT NULL,
	assistant  TEXT NOT NULL,
	files      TEXT NOT NULL,
	commands   TEXT NOT NULL,
	actions    TEXT NOT NULL DEFAULT '',
	time_ns    INTEGER,
	-- chars is the question's and answer's length in characters, so
	-- recall weighs a turn's size without unpacking it.
	chars      INTEGER NOT NULL DEFAULT 0,
	UNIQUE (session_id, turn)
);
` + turnsSchema + workSchema + `
CREATE TABLE IF NOT EXISTS vectors ` + vectorsColumns + `` + segmentSchema + pendingSchema + `
CREATE TABLE IF NOT EXISTS embedders (
	identity  TEXT PRIMARY KEY,
	dimension INTEGER NOT NULL,
	-- complete is 0 while some turn lacks this embedder's vectors.
	complete  INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS tombstones (
	session_id TEXT PRIMARY KEY,
	path       TEXT NOT NULL,
	forgotten  INTEGER NOT NULL
);
` + ledgerSchema

// upgrades bring a store of an older schema to schemaVersion, keyed by the
// version they upgrade from; each leaves the store at the next version.
// Columns are added with defaults that describe what the older store held
// (aider's sessions, no parents, no times), so nothing is re-read.
var upgrades = map[string]struct {
	to, sql string
	// indexOnly: the upgrade adds an index and changes no row and frees
	// no page, so the ledger's checksum and the file stay as they were
	// (upgrade neither adds the checksum up again nor vacuums: at a
	// million turns those took 40 s).
	indexOnly bool
}{
	"2": {to: "3", sql: `
ALTER TABLE files ADD COLUMN harness TEXT NOT NULL DEFAULT 'aider';
ALTER TABLE sessions ADD COLUMN harness TEXT NOT NULL DEFAULT 'aider';
ALTER TABLE sessions ADD COLUMN parent TEXT NOT NULL DEFAULT '';
ALTER TABLE sessions ADD COLUMN subagent INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN marker TEXT NOT NULL DEFAULT '';
ALTER TABLE turns ADD COLUMN actions TEXT NOT NULL DEFAULT '';
ALTER TABLE turns ADD COLUMN time_ns INTEGER;
`},
	"3": {to: "4", sql: `
ALTER TABLE files ADD COLUMN full_pending INTEGER NOT NULL DEFAULT 0;
`},
	"4": {to: "5", sql: `
DROP TRIGGER IF EXISTS turns_ai;
`},
	// The vectors' floats move to the segments: vec loses NOT NULL, and
	// upgrade flushes every vector (all pending) in the same transaction.
	"5": {to: "6", sql: `
CREATE TABLE vectors6 (
	embedder   TEXT NOT NULL,
	project    TEXT NOT NULL,
	turn_id    INTEGER NOT NULL REFERENCES turns(id) ON DELETE CASCADE,
	part       INTEGER NOT NULL,
	session_id TEXT NOT NULL,
	turn       INTEGER NOT NULL,
	vec        BLOB,
	PRIMARY KEY (embedder, project, turn_id, part)
) WITHOUT ROWID;
INSERT INTO vectors6 SELECT embedder, project, turn_id, part, session_id, turn, vec FROM vectors;
DROP TABLE vectors;
ALTER TABLE vectors6 RENAME TO vectors;
CREATE INDEX vectors_turn ON vectors(turn_id);
CREATE INDEX IF NOT EXISTS sessions_subagents ON sessions(subagent) WHERE subagent = 1;
` + segmentSchema},
	// Pack the turns and drop the keyword index's copy of them. The
	// keyword rows are written anew from the view, and the ledger of
	// vectors is copied into a new table to leave the old one's emptied
	// pages behind, its pending floats (a store upgraded from 5 in the
	// same transaction) moved to vector_floats for the upgrade's flush.
	"6": {to: "7", sql: `
DROP TRIGGER turns_ad;
DROP TABLE turns_fts;
ALTER TABLE turns RENAME TO turn_rows;
ALTER TABLE turn_rows ADD COLUMN chars INTEGER NOT NULL DEFAULT 0;
UPDATE turn_rows SET chars = length(user) + length(assistant), user = pack(user), assistant = pack(assistant);
` + turnsSchema + `
INSERT INTO turns_fts(rowid, user, assistant, files, commands) SELECT id, user, assistant, files, commands FROM turns;
CREATE TABLE vectors7 ` + vectorsColumns + `` + pendingSchema + `
INSERT INTO vector_floats SELECT embedder, turn_id, part, vec FROM vectors WHERE vec IS NOT NULL;
INSERT INTO vectors7 SELECT turn_id, embedder, part, CASE WHEN vec IS NOT NULL THEN x'' END FROM vectors;
DROP TABLE vectors;
ALTER TABLE vectors7 RENAME TO vectors;
` + segmentSchema},
	// The ledger's checksum: its triggers, and its row, which upgrade
	// adds up from the rows there.
	"7": {to: "8", sql: ledgerSchema},
	// The work table, and the checksum's triggers on it (ledgerSchema
	// creates only what is not there).
	"8": {to: "9", sql: workSchema + ledgerSchema},
	// The prompt sessions' index.
	"9": {to: "10", sql: promptsSchema, indexOnly: true},
}

// promptsSchema is the index of the prompt sessions (schema 10). Its
// condition is StoredPrompts' own, so that SQLite reads the index instead
// of every session.
const promptsSchema = `
CREATE INDEX IF NOT EXISTS sessions_prompts ON sessions(id) WHERE id GLOB '*-prompt-*';
`

// workSchema is the table of the turns' work (schema 9): chunk.Work's
// JSON, packed where that pays (read it through unpack).
const workSchema = `
CREATE TABLE IF NOT EXISTS turn_work (
	turn_id INTEGER PRIMARY KEY REFERENCES turn_rows(id) ON DELETE CASCADE,
	work    NOT NULL,
	-- end_ns is when the turn's last message was written (the work's
	-- end), NULL when unknown: recall dates an edit by it unpacked.
	end_ns  INTEGER
);
`

// turnsSchema is the view recall reads turns through and the keyword
// index over it (see pack.go).
const turnsSchema = `
CREATE VIEW IF NOT EXISTS turns AS SELECT id, session_id, turn, line, hash,
	unpack(user) AS user, unpack(assistant) AS assistant, files, commands, actions, time_ns, chars
	FROM turn_rows;
CREATE VIRTUAL TABLE IF NOT EXISTS turns_fts USING fts5(
	user, assistant, files, commands,
	content='', contentless_delete=1,
	tokenize="porter unicode61 remove_diacritics 2"
);
CREATE TRIGGER IF NOT EXISTS turns_ad AFTER DELETE ON turn_rows BEGIN
	DELETE FROM turns_fts WHERE rowid = old.id;
END;
`

// pendingSchema holds the floats the upgrade from schema 6 takes out of
// the old ledger until its flush moves them to the segment; it is empty
// between transactions. A writer's own pending floats stay in its memory
// (pendingFloats).
const pendingSchema = `
CREATE TABLE IF NOT EXISTS vector_floats (
	embedder TEXT NOT NULL,
	turn_id  INTEGER NOT NULL,
	part     INTEGER NOT NULL,
	vec      BLOB NOT NULL,
	PRIMARY KEY (embedder, turn_id, part)
) WITHOUT ROWID;
`

// segmentSchema is what schema 6 adds for the vector segments (see
// segment.go): vec is NULL once a vector is in its segment, and not NULL
// while it waits for its transaction's flush (vectors_pending finds
// those); vector_dead lists the flushed vectors deleted since the last
// flush, by trigger, so cascades from turns are caught too; segments
// names each embedder's file and its committed length.
const segmentSchema = `
CREATE INDEX IF NOT EXISTS vectors_pending ON vectors(embedder) WHERE vec IS NOT NULL;
CREATE TABLE IF NOT EXISTS vector_dead (
	embedder TEXT NOT NULL,
	turn_id  INTEGER NOT NULL,
	part     INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS segments (
	embedder TEXT PRIMARY KEY,
	file     TEXT NOT NULL,
	gen      INTEGER NOT NULL,
	length   INTEGER NOT NULL,
	records  INTEGER NOT NULL,
	dead     INTEGER NOT NULL
);
CREATE TRIGGER IF NOT EXISTS vectors_dead AFTER DELETE ON vectors WHEN old.vec IS NULL BEGIN
	INSERT INTO vector_dead(embedder, turn_id, part) VALUES (old.embedder, old.turn_id, old.part);
END;
`

// vectorsColumns is the vectors ledger of schema 7: which chunks of a turn
// each embedder holds, the floats being in its segment (vec is set while
// they wait for the commit's flush).
const vectorsColumns = `(
	turn_id  INTEGER NOT NULL REFERENCES turn_rows(id) ON DELETE CASCADE,
	embedder TEXT NOT NULL,
	part     INTEGER NOT NULL,
	vec      BLOB,
	PRIMARY KEY (turn_id, embedder, part)
) WITHOUT ROWID;
`
