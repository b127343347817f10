package memory

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/claude"
)

// readWhole is a Claude Code reader that is not a harness.LineStreamer:
// its transcripts are read whole, as every transcript was.
type readWhole struct{ harness.FileReader }

// TestStreamedTranscriptStoresWhatOneReadWholeStores: a transcript parsed
// as its lines are read, a few lines at a time, stores what it stores
// read whole (sessions, turns, records, vectors, files rows, problems
// and warnings): indexed, grown and indexed again, with a line over the line
// bound and a last line half written, and then re-read by --full.
func TestStreamedTranscriptStoresWhatOneReadWholeStores(t *testing.T) {
	emb := newWordsEmbedder()
	lim := harness.Limits{Line: 2000}
	var lines []string
	for i := 1; i <= 40; i++ {
		extra := ""
		if i%3 == 0 {
			extra = fmt.Sprintf(`,"isSidechain":true,"agentId":"a%d"`, i%2)
		}
		lines = append(lines,
			claudeLine(4*i, "user", fmt.Sprintf(`"question %d about the ledger"`, i), extra),
			claudeLine(4*i+1, "assistant", fmt.Sprintf(`[{"type":"text","text":"answer %d"},{"type":"tool_use","id":"t%d","name":"Bash","input":{"command":"go test ./ledger -run T%d"}}]`, i, i, i), extra))
		if i == 7 {
			lines = append(lines, claudeLine(4*i+2, "assistant", `[{"type":"text","text":"`+strings.Repeat("long ", 500)+`"}]`, ""))
		}
	}
	grown := strings.Join(lines, "")
	first := grown[:len(grown)/2] + `{"type":"user","uuid":"half`
	type run struct {
		data string
		full bool
	}
	runs := []run{{first, false}, {grown, false}, {grown, true}}
	dumps := map[string][]string{}
	for _, mode := range []string{"streamed", "whole"} {
		dir := mkdir(t, filepath.Join(t.TempDir(), mode))
		path := filepath.Join(dir, transcriptID+".jsonl")
		s, err := Open(context.Background(), mkdir(t, filepath.Join(dir, "data")))
		if err != nil {
			t.Fatal(err)
		}
		reg := harness.Registry{claude.Reader{}}
		if mode == "whole" {
			reg = harness.Registry{readWhole{claude.Reader{}}}
		}
		for _, r := range runs {
			if err := os.WriteFile(path, []byte(r.data), 0o644); err != nil {
				t.Fatal(err)
			}
			rep, err := s.Index(context.Background(), IndexOptions{Paths: []string{path}, Harnesses: reg, Embedder: emb, Full: r.full, chunk: 300, limits: lim})
			if err != nil {
				t.Fatal(err)
			}
			d := fmt.Sprintf("%d new turns, %d sessions, problems %q, warnings %q\n%s", rep.NewTurns, rep.Sessions, rep.Problems, rep.Warnings, storeDump(t, s, emb))
			dumps[mode] = append(dumps[mode], strings.ReplaceAll(d, dir, "DIR"))
		}
		s.Close()
	}
	for i := range runs {
		if dumps["streamed"][i] != dumps["whole"][i] {
			t.Errorf("run %d: streamed\n%s\nwhole\n%s", i, dumps["streamed"][i], dumps["whole"][i])
		}
	}
	if !strings.Contains(dumps["streamed"][0], "longer than 2000 bytes") {
		t.Errorf("the line over the bound was not reported:\n%s", dumps["streamed"][0])
	}
}
