package cursor

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// checkOutcomes reads one store or transcript and checks its records
// against the raw calls, decoded on their own with database/sql and
// encoding/json: each IDE terminal or edit call that ended "completed" or
// "error" has a record of its command or file with that status, and each
// transcript StrReplace or Write with new text has a record of its file
// carrying new text. It returns how many calls it checked.
func checkOutcomes(t *testing.T, path string) int {
	t.Helper()
	h, err := harness.ReadStore(context.Background(), Reader{}, path, harness.ParseOptions{Path: path, Location: time.UTC})
	if err != nil {
		t.Fatal(err)
	}
	var recs []harness.Record
	for _, s := range h.Sessions {
		recs = append(recs, s.Records...)
	}
	has := func(match func(harness.Record) bool) bool {
		for _, r := range recs {
			if match(r) {
				return true
			}
		}
		return false
	}
	checked := 0
	if strings.HasSuffix(path, ".jsonl") {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			var line struct {
				Message struct {
					Content json.RawMessage `json:"content"`
				} `json:"message"`
			}
			var blocks []struct {
				Type, Name string
				Input      map[string]any
			}
			if json.Unmarshal(sc.Bytes(), &line) != nil || json.Unmarshal(line.Message.Content, &blocks) != nil {
				continue
			}
			for _, b := range blocks {
				text, _ := b.Input["new_string"].(string)
				if b.Name == "Write" {
					text, _ = b.Input["contents"].(string)
				}
				p, _ := b.Input["path"].(string)
				if b.Type != "tool_use" || (b.Name != "StrReplace" && b.Name != "Write") || text == "" || p == "" {
					continue
				}
				checked++
				if !has(func(r harness.Record) bool {
					return r.Kind == harness.FileRecord && filepath.Base(r.Value) == filepath.Base(p) && r.Span.New != "" && r.Span.Whole == (b.Name == "Write")
				}) {
					t.Errorf("%s of %s has no record with its new text", b.Name, p)
				}
			}
		}
		return checked
	}
	db, err := sql.Open("sqlite", harness.StoreDSN(path, true))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT value FROM cursorDiskKV WHERE key >= 'bubbleId:' AND key < 'bubbleId;'`)
	if err != nil {
		// A store of the 2024 layout has no cursorDiskKV, nor tool calls.
		return 0
	}
	defer rows.Close()
	for rows.Next() {
		var v []byte
		rows.Scan(&v)
		var b struct {
			Tool *struct {
				Name, Status string
				Params       json.RawMessage
			} `json:"toolFormerData"`
		}
		if json.Unmarshal(v, &b) != nil || b.Tool == nil {
			continue
		}
		want := map[string]harness.Status{"completed": harness.Succeeded, "error": harness.Failed}[b.Tool.Status]
		if want == "" {
			continue
		}
		var args map[string]any
		if json.Unmarshal(b.Tool.Params, &args) != nil {
			var s string
			json.Unmarshal(b.Tool.Params, &s)
			json.Unmarshal([]byte(s), &args)
		}
		name := strings.ToLower(b.Tool.Name)
		cmd, _ := args["command"].(string)
		file := ""
		for _, k := range []string{"target_file", "file_path", "relativeWorkspacePath"} {
			if f, ok := args[k].(string); ok && file == "" {
				file = f
			}
		}
		switch {
		case shellTools[name] && strings.TrimSpace(cmd) != "":
			checked++
			if !has(func(r harness.Record) bool {
				return r.Kind == harness.CommandRecord && r.Value == strings.TrimSpace(cmd) && r.Outcome.Status == want
			}) {
				t.Errorf("%s %q ended %s; no record says so", name, cmd, b.Tool.Status)
			}
		case editTools[name] && file != "":
			checked++
			if !has(func(r harness.Record) bool {
				return r.Kind == harness.FileRecord && filepath.Base(r.Value) == filepath.Base(file) && r.Outcome.Status == want
			}) {
				t.Errorf("%s of %s ended %s; no record says so", name, file, b.Tool.Status)
			}
		}
	}
	return checked
}

// TestFixtureOutcomes runs the outcome check on the fixtures' stores and
// transcripts, where it has calls to check.
func TestFixtureOutcomes(t *testing.T) {
	checked := 0
	for _, fx := range harnesstest.Fixtures(t, 3, "*.txtar") {
		home := unpackHome(t, fx)
		for _, src := range Discover(harness.DiscoverOptions{Home: home}).Sources {
			checked += checkOutcomes(t, src.Path)
		}
	}
	if checked < 8 {
		t.Errorf("checked %d calls: too few to mean anything", checked)
	}
}

// TestCorpusOutcomes runs the outcome check on every corpus store and
// transcript. The corpus holds no IDE bubble with a tool call and no
// transcript edit, so it checks that none is misread until one is
// collected.
func TestCorpusOutcomes(t *testing.T) {
	layout := map[string]string{}
	for name := range corpusFiles {
		if isTranscript(name) {
			layout[name] = filepath.ToSlash(transcriptPlace(name))
		}
	}
	home := harnesstest.LayCorpus(t, corpusDir, layout)
	for name := range corpusFiles {
		path := filepath.Join(corpusDir, name)
		if isTranscript(name) {
			path = filepath.Join(home, transcriptPlace(name))
		}
		t.Run(name, func(t *testing.T) { checkOutcomes(t, path) })
	}
}
