package codex

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// TestPiecesAddUpToTheWhole: a .jsonl rollout streamed, after its
// prescan, and handed over in pieces of any size is the rollout parsed
// whole (harnesstest.PiecesAddUp): every fixture, and every corpus
// rollout when ../shared is there, the events and the response items
// each the stream read somewhere among them.
func TestPiecesAddUpToTheWhole(t *testing.T) {
	files := harnesstest.Fixtures(t, 1, "*.jsonl")
	corpus, _ := filepath.Glob(corpusDir + "/*.jsonl")
	pieces := 0
	read := map[string]int{}
	for _, f := range append(files, corpus...) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(f)
		if !strings.HasPrefix(name, "rollout-") {
			name = "rollout-2025-12-25T22-45-23-019b55c1-d022-7061-bbb9-b0c90708472b.jsonl"
		}
		if !(Reader{}).Streams(fixtureDir+name, data) {
			t.Fatalf("%s: a .jsonl rollout that does not stream", f)
		}
		found, _ := Reader{}.Prescan(strings.NewReader(string(data)))
		read[found]++
		pieces += harnesstest.PiecesAddUp(t, f, Reader{}, data, harness.ParseOptions{Path: fixtureDir + name, FirstOrdinal: 2})
	}
	if pieces == 0 || read[prescannedEvents] == 0 || read[""] == 0 {
		t.Fatalf("%d pieces handed over, streams read %v: want pieces, and rollouts of each stream", pieces, read)
	}
	if (Reader{}).Streams(fixtureDir+"rollout-x.jsonl.zst", nil) || (Reader{}).Streams(fixtureDir+"rollout-x.json", nil) {
		t.Error("a .jsonl.zst or a legacy .json streams")
	}
}

// TestPrescanReadsPastLongLines: the prescan finds a user_message event
// after a line far longer than the head of a line it holds, and a
// mention of user_message in a line of another kind is not one.
func TestPrescanReadsPastLongLines(t *testing.T) {
	meta := `{"timestamp":"2025-12-25T13:45:23.000Z","type":"session_meta","payload":{"id":"019b55c1-d022-7061-bbb9-b0c90708472b","instructions":"` + strings.Repeat("be brief ", 100000) + `"}}` + "\n"
	mention := `{"timestamp":"2025-12-25T13:45:24.000Z","type":"response_item","payload":{"type":"message","role":"user","content":"what is a user_message event?"}}` + "\n"
	event := `{"timestamp":"2025-12-25T13:45:25.000Z","type":"event_msg","payload":{"type":"user_message","message":"hi"}}` + "\n"
	for _, c := range []struct {
		data, want string
	}{{meta + mention, ""}, {meta + mention + event, prescannedEvents}, {meta + event[:len(event)-1], prescannedEvents}} {
		got, err := Reader{}.Prescan(strings.NewReader(c.data))
		if err != nil || got != c.want {
			t.Errorf("prescan of %d bytes = %q, %v; want %q", len(c.data), got, err, c.want)
		}
		if whole := hasUserEvents([]byte(c.data)); whole != (c.want == prescannedEvents) {
			t.Errorf("hasUserEvents = %v where the prescan wants %q", whole, c.want)
		}
	}
}
