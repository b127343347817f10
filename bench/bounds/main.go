// Command bounds writes the hostile inputs that docs/recall.md's "Bounded
// input" table measures `deja index` on, each in a directory of its own
// under -dir:
//
//	line/   a Claude transcript whose second line is 1 GB (-line-mb)
//	deep/   a Claude transcript with a line of 2,000,000 nested '['
//	bomb/   a Codex .jsonl.zst of 6 KB-per-GB that decodes to 8 GB (-bomb-gb)
//	view/   a 20 KB opencode.db whose part table is a recursive VIEW
//	store/  a 340 MB opencode.db of ordinary sessions (-store-mb)
//	ordinary/  a 250 MB Claude transcript of ordinary lines, one session (-ordinary-mb)
//	sessions/  the same, its turns spread over its session and 499 subagents
//	rollout/   a Codex .jsonl rollout of about as many bytes of ordinary turns
//	aider/     an aider history of about as many bytes, one session of ordinary turns
//	gemini/    a Gemini CLI JSONL recording of about as many bytes, one session of
//	           ordinary turns, each answer re-appended once its tool call finished
//	copilot/   a Copilot CLI events.jsonl of about as many bytes, one session of ordinary turns
//	pi/        a pi session of about as many bytes, one branch of ordinary turns
//
// Measure each with a fresh data directory, as docs/recall.md shows:
//
//	go run ./bench/bounds -dir /tmp/bounds
//	go build -o /tmp/deja ./cmd/deja
//	for d in line deep bomb view store ordinary sessions rollout aider gemini copilot pi; do
//	  DEJA_DATA_DIR=/tmp/bounds/data-$d /usr/bin/time -v /tmp/deja index /tmp/bounds/$d/*
//	done
//	DEJA_DATA_DIR=/tmp/bounds/data-store /usr/bin/time -v /tmp/deja index /tmp/bounds/store/*
//
// (the store's second run is the re-index with nothing new). The files
// are large: check the disk first, and remove -dir afterwards.
package main

import (
	"bufio"
	"database/sql"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/klauspost/compress/zstd"
	_ "modernc.org/sqlite"
)

func main() {
	dir := flag.String("dir", "", "directory to write the inputs in (required)")
	only := flag.String("only", "line,deep,bomb,view,store,ordinary,sessions,rollout,aider,gemini,copilot,pi", "which inputs to write, comma-separated")
	lineMB := flag.Int("line-mb", 1024, "size of line/'s long line, in MB")
	bombGB := flag.Int("bomb-gb", 8, "what bomb/'s .zst decodes to, in GB")
	storeMB := flag.Int("store-mb", 340, "about how large store/'s opencode.db is, in MB")
	ordinaryMB := flag.Int("ordinary-mb", 250, "about how large ordinary/'s and sessions/' transcripts, rollout/'s rollout, aider/'s history, gemini/'s recording and copilot/'s and pi/'s sessions are, in MB")
	flag.Parse()
	if *dir == "" {
		fmt.Fprintln(os.Stderr, "bounds: -dir is required")
		os.Exit(2)
	}
	makers := map[string]func(string) error{
		"line":     func(d string) error { return longLine(d, int64(*lineMB)<<20) },
		"deep":     deepLine,
		"bomb":     func(d string) error { return zstdBomb(d, int64(*bombGB)<<30) },
		"view":     recursiveView,
		"store":    func(d string) error { return bigStore(d, int64(*storeMB)<<20) },
		"ordinary": func(d string) error { return ordinary(d, int64(*ordinaryMB)<<20, 1) },
		"sessions": func(d string) error { return ordinary(d, int64(*ordinaryMB)<<20, 500) },
		"rollout":  func(d string) error { return rollout(d, int64(*ordinaryMB)<<20) },
		"aider":    func(d string) error { return aiderSession(d, int64(*ordinaryMB)<<20) },
		"gemini":   func(d string) error { return geminiRecording(d, int64(*ordinaryMB)<<20) },
		"copilot":  func(d string) error { return copilotEvents(d, int64(*ordinaryMB)<<20) },
		"pi":       func(d string) error { return piSession(d, int64(*ordinaryMB)<<20) },
	}
	for _, name := range strings.Split(*only, ",") {
		write, ok := makers[name]
		if !ok {
			fmt.Fprintf(os.Stderr, "bounds: unknown input %q\n", name)
			os.Exit(2)
		}
		d := filepath.Join(*dir, name)
		if err := os.MkdirAll(d, 0o755); err != nil {
			fmt.Fprintln(os.Stderr, "bounds:", err)
			os.Exit(1)
		}
		if err := write(d); err != nil {
			fmt.Fprintf(os.Stderr, "bounds: %s: %v\n", name, err)
			os.Exit(1)
		}
		fmt.Println("wrote", d)
	}
}

const sessionID = "11111111-2222-4333-8444-555555555555"

// claudeLine is one Claude Code line of a user's or assistant's text.
func claudeLine(n int, typ, text string) string {
	return fmt.Sprintf(`{"type":%q,"uuid":"u%d","sessionId":%q,"cwd":"/srv/shop","timestamp":"2026-07-20T10:%02d:00.000Z","message":{"role":%q,"content":%q}}`+"\n",
		typ, n, sessionID, n, typ, text)
}

// transcript writes a Claude transcript whose second line is written by
// middle, between ordinary lines.
func transcript(dir string, middle func(w io.Writer) error) error {
	f, err := os.Create(filepath.Join(dir, sessionID+".jsonl"))
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	fmt.Fprint(w, claudeLine(1, "user", "fix the rounding"))
	if err := middle(w); err != nil {
		f.Close()
		return err
	}
	fmt.Fprint(w, "\n", claudeLine(3, "assistant", "Fixed."), claudeLine(4, "user", "now the taxes"))
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// longLine: a user line whose text is n bytes.
func longLine(dir string, n int64) error {
	return transcript(dir, func(w io.Writer) error {
		fmt.Fprintf(w, `{"type":"user","uuid":"u2","sessionId":%q,"message":{"role":"user","content":"`, sessionID)
		chunk := []byte(strings.Repeat("x", 1<<20))
		for left := n; left > 0; left -= int64(len(chunk)) {
			if _, err := w.Write(chunk[:min(int64(len(chunk)), left)]); err != nil {
				return err
			}
		}
		_, err := fmt.Fprint(w, `"}}`)
		return err
	})
}

// deepLine: a line of 2,000,000 nested '['.
func deepLine(dir string) error {
	return transcript(dir, func(w io.Writer) error {
		fmt.Fprintf(w, `{"type":"user","uuid":"u2","sessionId":%q,"message":`, sessionID)
		_, err := io.WriteString(w, strings.Repeat("[", 2_000_000))
		return err
	})
}

// ordinary: a transcript of about n bytes of ordinary turns, spread
// evenly over the given number of sessions (its own and its subagents'): a question, an answer that
// runs a command, the command's 1.5 KB of output, and a closing answer.
func ordinary(dir string, n int64, sessions int) error {
	out := strings.Repeat("ok  \tgithub.com/acme/shop/internal/ledger\t0.412s\n", 32)
	return jsonLines(filepath.Join(dir, sessionID+".jsonl"), "", n, func(turn int) []string {
		// A transcript's other sessions are its subagents' (sidechains).
		agent := ""
		if k := turn % sessions; k > 0 {
			agent = fmt.Sprintf(`"isSidechain":true,"agentId":"a%d",`, k)
		}
		ts := fmt.Sprintf("2026-07-20T%02d:%02d:%02d.000Z", turn/3600%24, turn/60%60, turn%60)
		head := func(typ, uuid string) string {
			return fmt.Sprintf(`{"type":%q,"uuid":%q,"sessionId":%q,"cwd":"/srv/shop","timestamp":%q,%s`, typ, uuid, sessionID, ts, agent)
		}
		return []string{
			head("user", fmt.Sprintf("q%d", turn)) + fmt.Sprintf(`"message":{"role":"user","content":%q}}`,
				fmt.Sprintf("question %d: why does the ledger total drift by a cent on refunds in internal/ledger/refund.go?", turn)),
			head("assistant", fmt.Sprintf("a%d", turn)) + fmt.Sprintf(`"message":{"role":"assistant","content":[{"type":"text","text":%q},{"type":"tool_use","id":"t%d","name":"Bash","input":{"command":"go test ./internal/ledger -run Refund%d"}}]}}`,
				"Let me run the refund tests first. "+strings.Repeat("The refund path rounds per line. ", 8), turn, turn),
			head("user", fmt.Sprintf("r%d", turn)) + fmt.Sprintf(`"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t%d","content":%q}]},"toolUseResult":{"stdout":%q}}`,
				turn, out, out),
			head("assistant", fmt.Sprintf("b%d", turn)) + fmt.Sprintf(`"message":{"role":"assistant","content":[{"type":"text","text":%q}]}}`,
				fmt.Sprintf("answer %d: the refund path rounds each line before summing; round the sum instead.", turn)),
		}
	})
}

// rollout: a Codex rollout of about n bytes of ordinary turns, each
// logged as Codex logs it: the question as a response item and as a
// user_message event, a shell call, its 1.5 KB of output, and the answer
// as an item and an event.
func rollout(dir string, n int64) error {
	const id = "019b55c1-d022-7061-bbb9-b0c90708472b"
	f, err := os.Create(filepath.Join(dir, "rollout-2025-12-25T22-45-23-"+id+".jsonl"))
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	line := func(ts, typ, payload string) (int, error) {
		return fmt.Fprintf(w, `{"timestamp":%q,"type":%q,"payload":%s}`+"\n", ts, typ, payload)
	}
	line("2025-12-25T13:00:00.000Z", "session_meta", `{"id":"`+id+`","timestamp":"2025-12-25T13:00:00.000Z","cwd":"/srv/shop"}`)
	out := strings.Repeat("ok  \tgithub.com/acme/shop/internal/ledger\t0.412s\n", 32)
	var written int64
	for turn := 0; written < n; turn++ {
		ts := fmt.Sprintf("2025-12-25T%02d:%02d:%02d.000Z", turn/3600%24, turn/60%60, turn%60)
		q := fmt.Sprintf("question %d: why does the ledger total drift by a cent on refunds in internal/ledger/refund.go?", turn)
		a := fmt.Sprintf("answer %d: the refund path rounds each line before summing; round the sum instead.", turn)
		for _, l := range [][2]string{
			{"response_item", fmt.Sprintf(`{"type":"message","role":"user","content":[{"type":"input_text","text":%q}]}`, q)},
			{"event_msg", fmt.Sprintf(`{"type":"user_message","message":%q}`, q)},
			{"response_item", fmt.Sprintf(`{"type":"function_call","name":"shell","arguments":%q,"call_id":"c%d"}`, fmt.Sprintf(`{"command":["go","test","./internal/ledger","-run","Refund%d"]}`, turn), turn)},
			{"response_item", fmt.Sprintf(`{"type":"function_call_output","call_id":"c%d","output":%q}`, turn, out)},
			{"response_item", fmt.Sprintf(`{"type":"message","role":"assistant","content":[{"type":"output_text","text":%q}]}`, a)},
			{"event_msg", fmt.Sprintf(`{"type":"agent_message","message":%q}`, a)},
		} {
			m, err := line(ts, l[0], l[1])
			if err != nil {
				f.Close()
				return err
			}
			written += int64(m)
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// zstdBomb: a rollout of one session_meta line and then the same user
// message line again, n bytes decoded.
func zstdBomb(dir string, n int64) error {
	f, err := os.Create(filepath.Join(dir, "rollout-2025-12-25T22-45-23-019b55c1-d022-7061-bbb9-b0c90708472b.jsonl.zst"))
	if err != nil {
		return err
	}
	enc, err := zstd.NewWriter(f, zstd.WithEncoderLevel(zstd.SpeedFastest))
	if err != nil {
		f.Close()
		return err
	}
	fmt.Fprint(enc, `{"timestamp":"2025-12-25T13:00:00.000Z","type":"session_meta","payload":{"id":"019b55c1-d022-7061-bbb9-b0c90708472b","cwd":"/home/u/app"}}`+"\n")
	line := `{"timestamp":"2025-12-25T13:01:00.000Z","type":"event_msg","payload":{"type":"user_message","message":"again"}}` + "\n"
	block := []byte(strings.Repeat(line, (1<<20)/len(line)))
	for left := n; left > 0; left -= int64(len(block)) {
		if _, err := enc.Write(block); err != nil {
			f.Close()
			return err
		}
	}
	if err := enc.Close(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// schema is the tables OpenCode 1.2.25 creates, as far as deja reads them
// (harness/opencode/testdata/schema.sql).
const schema = `
CREATE TABLE session (id text PRIMARY KEY, project_id text NOT NULL, parent_id text, slug text NOT NULL, directory text NOT NULL,
	title text NOT NULL, version text NOT NULL, share_url text, time_created integer NOT NULL, time_updated integer NOT NULL,
	time_compacting integer, time_archived integer);
CREATE TABLE message (id text PRIMARY KEY, session_id text NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL);
`

// recursiveView: a store whose part table is a view yielding rows
// without end.
func recursiveView(dir string) error {
	return store(dir, func(tx *sql.Tx) error {
		stmts := []string{
			`CREATE VIEW part AS WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r)
			SELECT 'prt_' || n AS id, 'msg_1' AS message_id, 'ses_1' AS session_id, n AS time_created, n AS time_updated,
				'{"type":"text","text":"again and again"}' AS data FROM r`,
			`INSERT INTO session VALUES ('ses_1', 'prj_1', NULL, 's', '/home/dev/proj', 'loop', '1.2.25', NULL, 1774893435268, 1774893435999, NULL, NULL)`,
			`INSERT INTO message VALUES ('msg_1', 'ses_1', 1774893435275, 1774893435275, '{"role":"user","time":{"created":1774893435275}}')`,
		}
		for _, s := range stmts {
			if _, err := tx.Exec(s); err != nil {
				return err
			}
		}
		return nil
	})
}

// bigStore: sessions of ten turns, each a question and an answer of a
// text, a reasoning and six commands of 1.5 KB of output, until the store
// is about n bytes: many small rows, as OpenCode writes them.
func bigStore(dir string, n int64) error {
	out := strings.Repeat("ok  \tgithub.com/acme/shop/internal/ledger\t0.412s\n", 32)
	// Ten turns of about 11 KB, and SQLite's pages around them.
	perSession := int64(10 * 15 << 10)
	return store(dir, func(tx *sql.Tx) error {
		if _, err := tx.Exec(`CREATE TABLE part (id text PRIMARY KEY, message_id text NOT NULL, session_id text NOT NULL,
			time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL)`); err != nil {
			return err
		}
		ses, err := tx.Prepare(`INSERT INTO session VALUES (?, 'prj_1', NULL, 's', '/home/dev/shop', 'work', '1.2.25', NULL, ?, ?, NULL, NULL)`)
		if err != nil {
			return err
		}
		msg, err := tx.Prepare(`INSERT INTO message VALUES (?, ?, ?, ?, ?)`)
		if err != nil {
			return err
		}
		part, err := tx.Prepare(`INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)`)
		if err != nil {
			return err
		}
		t := int64(1774893435000)
		for s := int64(0); s*perSession < n; s++ {
			sid := fmt.Sprintf("ses_%06d", s)
			if _, err := ses.Exec(sid, t, t+10_000); err != nil {
				return err
			}
			for turn := range 10 {
				t += 1000
				for _, role := range []string{"user", "assistant"} {
					mid := fmt.Sprintf("msg_%06d_%02d_%s", s, turn, role[:1])
					data := fmt.Sprintf(`{"role":%q,"time":{"created":%d}}`, role, t)
					if _, err := msg.Exec(mid, sid, t, t, data); err != nil {
						return err
					}
					text := fmt.Sprintf("question %d of session %d: why does the ledger total drift by a cent on refunds?", turn, s)
					if role == "assistant" {
						text = fmt.Sprintf("answer %d: the refund path rounds each line before summing; round the sum instead.", turn)
					}
					parts := []string{fmt.Sprintf(`{"type":"text","text":%q}`, text)}
					if role == "assistant" {
						parts = append(parts, fmt.Sprintf(`{"type":"reasoning","text":%q}`, strings.Repeat("The refund path rounds per line. ", 15)))
						for c := range 6 {
							parts = append(parts, fmt.Sprintf(`{"type":"tool","tool":"bash","state":{"status":"completed","input":{"command":"go test ./internal/ledger -run Refund%d/%d"},"output":%q}}`, turn, c, out))
						}
					}
					for i, p := range parts {
						if _, err := part.Exec(fmt.Sprintf("prt_%s_%d", mid, i), mid, sid, t, t, p); err != nil {
							return err
						}
					}
				}
			}
		}
		return nil
	})
}

// store writes dir/opencode.db: the schema, then fill's rows, in one
// transaction.
func store(dir string, fill func(*sql.Tx) error) error {
	path := filepath.Join(dir, "opencode.db")
	os.Remove(path)
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		return err
	}
	defer db.Close()
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.Exec(schema); err != nil {
		return err
	}
	if err := fill(tx); err != nil {
		return err
	}
	return tx.Commit()
}

// aiderSession: an aider history of about n bytes, one session of
// ordinary turns as aider writes them: a question, an answer with a code
// fence, an edit applied and a command run with its output.
func aiderSession(dir string, n int64) error {
	f, err := os.Create(filepath.Join(dir, ".aider.chat.history.md"))
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	m, _ := fmt.Fprint(w, "\n# aider chat started at 2026-07-20 09:00:00\n\n")
	written := int64(m)
	out := strings.Repeat("> ok  \tgithub.com/acme/shop/internal/ledger\t0.412s  \n", 32)
	for turn := 0; written < n; turn++ {
		m, err := fmt.Fprintf(w, "#### question %d: why does the ledger total drift by a cent on refunds in internal/ledger/refund.go?  \n\n"+
			"%s\n\n```go\nfunc refund%d(lines []Line) Cents { return round(sum(lines)) }\n```\n\n"+
			"> Applied edit to internal/ledger/refund.go  \n> Running go test ./internal/ledger -run Refund%d  \n%s\n",
			turn, strings.Repeat("The refund path rounds each line before summing; round the sum instead. ", 6), turn, turn, out)
		if err != nil {
			f.Close()
			return err
		}
		written += int64(m)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// geminiRecording: a Gemini CLI recording's header, then turns of a
// prompt, an answer whose tool call is executing and the answer again,
// re-appended with the same id once the call finished, as the CLI writes
// them.
func geminiRecording(dir string, n int64) error {
	answer := strings.Repeat("The refund path rounds each line before summing; round the sum instead. ", 6)
	first := `{"sessionId":"0b7c6f0e-4d6a-4c1e-9a53-1f2e3d4c5b6a","projectHash":"ab12","startTime":"2026-07-20T09:00:00.000Z","kind":"main"}`
	return jsonLines(filepath.Join(dir, "session-2026-07-20T09-00-0b7c6f0e.jsonl"), first, n, func(turn int) []string {
		ts := fmt.Sprintf("2026-07-20T%02d:%02d:%02d.000Z", turn/3600%24, turn/60%60, turn%60)
		call := fmt.Sprintf(`[{"id":"c%d","name":"run_shell_command","status":%%q,"args":{"command":"go test ./internal/ledger -run Refund%d"}}]`, turn, turn)
		return []string{
			fmt.Sprintf(`{"id":"u%d","timestamp":%q,"type":"user","content":"question %d: why does the ledger total drift by a cent on refunds in internal/ledger/refund.go?"}`, turn, ts, turn),
			fmt.Sprintf(`{"id":"g%d","timestamp":%q,"type":"gemini","content":%q,"toolCalls":%s}`, turn, ts, answer, fmt.Sprintf(call, "executing")),
			fmt.Sprintf(`{"id":"g%d","timestamp":%q,"type":"gemini","content":%q,"toolCalls":%s}`, turn, ts, answer, fmt.Sprintf(call, "success")),
		}
	})
}

// jsonLines writes the first line, when there is one, then the lines
// turn gives for turns 0, 1, … until n bytes are written, to path.
func jsonLines(path, first string, n int64, turn func(i int) []string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	var written int64
	if first != "" {
		m, _ := fmt.Fprintln(w, first)
		written = int64(m)
	}
	for i := 0; written < n; i++ {
		for _, l := range turn(i) {
			m, err := fmt.Fprintln(w, l)
			if err != nil {
				f.Close()
				return err
			}
			written += int64(m)
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// copilotEvents: a Copilot CLI session's events: each turn a prompt, an
// answer, and a shell command started and completed.
func copilotEvents(dir string, n int64) error {
	const id = "0f6c2b9e-3a41-4d7e-9b8a-2c5d1e7f4a60"
	d := filepath.Join(dir, "session-state", id)
	if err := os.MkdirAll(d, 0o755); err != nil {
		return err
	}
	answer := strings.Repeat("The refund path rounds each line before summing; round the sum instead. ", 6)
	first := `{"type":"session.start","data":{"sessionId":"` + id + `","version":1,"producer":"copilot-agent","startTime":"2026-07-20T09:00:00.000Z","context":{"cwd":"/srv/shop"}},"id":"e0","timestamp":"2026-07-20T09:00:00.000Z","parentId":null}`
	return jsonLines(filepath.Join(d, "events.jsonl"), first, n, func(i int) []string {
		ts := fmt.Sprintf("2026-07-20T%02d:%02d:%02d.000Z", i/3600%24, i/60%60, i%60)
		return []string{
			fmt.Sprintf(`{"type":"user.message","data":{"content":"question %d: why does the ledger total drift by a cent on refunds in internal/ledger/refund.go?"},"id":"u%d","timestamp":%q}`, i, i, ts),
			fmt.Sprintf(`{"type":"assistant.message","data":{"content":%q},"id":"a%d","timestamp":%q}`, answer, i, ts),
			fmt.Sprintf(`{"type":"tool.execution_start","data":{"toolCallId":"c%d","toolName":"bash","arguments":{"command":"go test ./internal/ledger -run Refund%d"}},"id":"s%d","timestamp":%q}`, i, i, i, ts),
			fmt.Sprintf(`{"type":"tool.execution_complete","data":{"toolCallId":"c%d","success":true,"result":{"content":"ok"}},"id":"d%d","timestamp":%q}`, i, i, ts),
		}
	})
}

// piSession: a pi session of one branch: each turn a prompt, an answer
// that runs a command, and its result.
func piSession(dir string, n int64) error {
	const id = "8c3d4e5f-6071-4c8d-ae9f-1a2b3c4d5e6f"
	d := filepath.Join(dir, "sessions", "--srv-shop--")
	if err := os.MkdirAll(d, 0o755); err != nil {
		return err
	}
	answer := strings.Repeat("The refund path rounds each line before summing; round the sum instead. ", 6)
	first := `{"type":"session","version":3,"id":"` + id + `","timestamp":"2026-07-20T09:00:00.000Z","cwd":"/srv/shop"}`
	return jsonLines(filepath.Join(d, "2026-07-20T09-00-00-000Z_"+id+".jsonl"), first, n, func(i int) []string {
		ts := fmt.Sprintf("2026-07-20T%02d:%02d:%02d.000Z", i/3600%24, i/60%60, i%60)
		parent := "null"
		if i > 0 {
			parent = fmt.Sprintf(`"r%d"`, i-1)
		}
		return []string{
			fmt.Sprintf(`{"type":"message","id":"u%d","parentId":%s,"timestamp":%q,"message":{"role":"user","content":[{"type":"text","text":"question %d: why does the ledger total drift by a cent on refunds in internal/ledger/refund.go?"}]}}`, i, parent, ts, i),
			fmt.Sprintf(`{"type":"message","id":"a%d","parentId":"u%d","timestamp":%q,"message":{"role":"assistant","content":[{"type":"text","text":%q},{"type":"toolCall","id":"c%d","name":"bash","arguments":{"command":"go test ./internal/ledger -run Refund%d"}}]}}`, i, i, ts, answer, i, i),
			fmt.Sprintf(`{"type":"message","id":"r%d","parentId":"a%d","timestamp":%q,"message":{"role":"toolResult","toolCallId":"c%d","content":[{"type":"text","text":"ok"}],"isError":false}}`, i, i, ts, i),
		}
	})
}
