package harnesstest

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/deja-dev/deja/harness"
)

// SharedCorpus is the folder of real public histories, one folder per
// agent, beside the repository, as a reader's package folder
// (harness/<agent>) sees it: CI has it, a user's clone has not, so the
// tests that read it skip there (CorpusFiles).
const SharedCorpus = "../../../shared/harness/corpus/"

// CorpusFiles returns the files of a corpus directory beside the
// repository that match any of patterns, and skips t when there are none:
// a user's clone has no corpus, CI has one.
func CorpusFiles(t testing.TB, dir string, patterns ...string) []string {
	t.Helper()
	var files []string
	for _, p := range patterns {
		m, _ := filepath.Glob(filepath.Join(dir, p))
		files = append(files, m...)
	}
	if len(files) == 0 {
		t.Skipf("no corpus at %s (it sits beside the repository in CI)", dir)
	}
	return files
}

// Fixtures returns the files under testdata that match any of patterns,
// leaving out golden files and READMEs, and fails t when fewer than min
// are found (a fixture set that went missing must not pass as empty).
func Fixtures(t testing.TB, min int, patterns ...string) []string {
	t.Helper()
	var files []string
	for _, p := range patterns {
		m, _ := filepath.Glob(filepath.Join("testdata", p))
		for _, f := range m {
			if !strings.HasSuffix(f, ".golden.json") && filepath.Base(f) != "README.md" {
				files = append(files, f)
			}
		}
	}
	if len(files) < min {
		t.Fatalf("found %d fixtures matching %v, want at least %d", len(files), patterns, min)
	}
	return files
}

// Seed adds every testdata file that matches any of patterns to a fuzz
// target's corpus.
func Seed(f *testing.F, patterns ...string) {
	SeedEach(f, 0, func(_ string, data []byte) []any { return []any{data} }, patterns...)
}

// SeedEach adds to a fuzz target's corpus, for every testdata file that
// matches any of patterns, the arguments args makes of its base name and
// bytes: for a target that takes more than the bytes. It fails f when
// fewer than min files match.
func SeedEach(f *testing.F, min int, args func(name string, data []byte) []any, patterns ...string) {
	f.Helper()
	for _, fx := range Fixtures(f, min, patterns...) {
		data, err := os.ReadFile(fx)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(args(filepath.Base(fx), data)...)
	}
}

// CheckTurns fails t unless every session's ID starts with prefix and
// every message's turn counts the user messages before it, its own
// included: the first user message opens turn 0.
func CheckTurns(t *testing.T, h *harness.History, prefix string) {
	t.Helper()
	for _, s := range h.Sessions {
		if !strings.HasPrefix(s.ID, prefix) {
			t.Fatalf("session ID %q, want the prefix %q", s.ID, prefix)
		}
		turn := -1
		for _, m := range s.Messages {
			if m.Role == harness.User {
				turn++
			}
			if m.Turn != turn {
				t.Fatalf("session %s: message at line %d has turn %d, want %d", s.ID, m.Line, m.Turn, turn)
			}
		}
	}
}

// CheckValidIDs fails t unless valid, a reader's ValidID, accepts every
// session's ID.
func CheckValidIDs(t *testing.T, h *harness.History, valid func(id string) bool) {
	t.Helper()
	for _, s := range h.Sessions {
		if !valid(s.ID) {
			t.Fatalf("invalid session ID %q", s.ID)
		}
	}
}

// CheckParse fails t when h, a parse of size bytes from the file's
// start, breaks what a reader keeps on any input: the invariants
// (CheckInvariants), IDs that r takes as its own, turns that count user
// messages (CheckTurns), and, when most > 0, at most most sessions.
func CheckParse(t *testing.T, h *harness.History, size int, r harness.Reader, most int) {
	t.Helper()
	CheckInvariants(t, h, 0, size)
	if most > 0 && len(h.Sessions) > most {
		t.Fatalf("%d sessions from one history, want at most %d", len(h.Sessions), most)
	}
	CheckValidIDs(t, h, r.ValidID)
	CheckTurns(t, h, "")
}

// BenchParse reads paths once, then parses them all per iteration through
// parse, reporting MB/s of their bytes and MB per CPU-second.
func BenchParse(b *testing.B, paths []string, parse func(path string, data []byte)) {
	b.Helper()
	var files [][]byte
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		files = append(files, data)
	}
	BenchParseData(b, paths, files, parse)
}

// BenchCorpus is BenchParse with a reader's Parse, each file parsed at
// its own path: the corpus benchmark of a reader that needs nothing more.
func BenchCorpus(b *testing.B, paths []string, parse func([]byte, harness.ParseOptions) *harness.History) {
	b.Helper()
	BenchParse(b, paths, func(path string, data []byte) { parse(data, harness.ParseOptions{Path: path}) })
}

// BenchParseData parses every files[i], under the name names[i], through
// parse per iteration, reporting MB/s of their bytes and MB per
// CPU-second: BenchParse for histories made or cut in memory.
func BenchParseData(b *testing.B, names []string, files [][]byte, parse func(name string, data []byte)) {
	b.Helper()
	var size int64
	for _, data := range files {
		size += int64(len(data))
	}
	BenchBytes(b, size, func() {
		for j, data := range files {
			parse(names[j], data)
		}
	})
}

// BenchBytes runs op per iteration, reporting its allocations, MB/s of
// size bytes an operation and MB per CPU-second: for work measured in
// bytes that are not handed to it, such as a store's file read by path.
func BenchBytes(b *testing.B, size int64, op func()) {
	b.Helper()
	b.SetBytes(size)
	b.ReportAllocs()
	b.ResetTimer()
	start := CPUTime()
	for range b.N {
		op()
	}
	ReportCPURate(b, start, size)
}

// ReportCPURate stops b's timer and adds its megabytes per CPU-second,
// from the CPU time spent since start (a CPUTime reading): a rate that
// holds on a machine busy with other work, where MB/s does not.
func ReportCPURate(b *testing.B, start time.Duration, bytesPerOp int64) {
	b.StopTimer()
	if used := CPUTime() - start; used > 0 && start > 0 {
		b.ReportMetric(float64(bytesPerOp)*float64(b.N)/used.Seconds()/1e6, "MB/cpu-s")
	}
}

// StreamsAsWhole fails t unless each input, parsed by ls as its lines are
// read in chunks of 1 byte, 100 bytes and 1 MB (a line cut across none,
// one or many chunks), is the input parsed whole with the same options,
// and unless ls says it streams each input at opts.Path.
func StreamsAsWhole(t *testing.T, ls harness.LineStreamer, inputs map[string][]byte, opts harness.ParseOptions) {
	t.Helper()
	StreamsAsWholeAt(t, ls, inputs, func(string) harness.ParseOptions { return opts })
}

// StreamsAsWholeAt is StreamsAsWhole with each input parsed with the
// options opts gives for its name: for a reader that reads a history by
// where it lies.
func StreamsAsWholeAt(t *testing.T, ls harness.LineStreamer, inputs map[string][]byte, opts func(name string) harness.ParseOptions) {
	t.Helper()
	for name, data := range inputs {
		opts := opts(name)
		if !ls.Streams(opts.Path, data) {
			t.Fatalf("%s: %s is not streamed", name, opts.Path)
		}
		want := harness.ParseFile(ls, data, opts)
		for _, chunk := range []int{1, 100, 1 << 20} {
			got, n, err := harness.ParseStream(ls, bytes.NewReader(data), chunk, 0, opts)
			if err != nil || n != int64(len(data)) {
				t.Fatalf("%s, chunk %d: read %d of %d bytes, %v", name, chunk, n, len(data), err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s at offset %d, chunk %d: streamed\n%+v\nwhole\n%+v", name, opts.Offset, chunk, got, want)
			}
		}
	}
}

// StreamInputs reads every testdata file that matches pattern into a map
// by base name, for StreamsAsWhole, and adds two made of the fixture
// base: "bom", it behind a UTF-8 byte order mark, and "partial last
// line", it followed by partial, a line still being written.
func StreamInputs(t testing.TB, pattern, base, partial string) map[string][]byte {
	t.Helper()
	inputs := ReadInputs(t, Fixtures(t, 1, pattern))
	first, ok := inputs[base]
	if !ok {
		t.Fatalf("no fixture %s", base)
	}
	inputs["bom"] = append([]byte("\xEF\xBB\xBF"), first...)
	inputs["partial last line"] = append(bytes.Clone(first), partial...)
	return inputs
}

// ReadInputs reads files into a map by base name, for StreamsAsWhole.
func ReadInputs(t testing.TB, files []string) map[string][]byte {
	t.Helper()
	inputs := map[string][]byte{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		inputs[filepath.Base(f)] = data
	}
	return inputs
}

// CheckTexts fails t unless h holds one session whose messages' texts
// are want, in order, and whose warnings are warnings, exactly.
func CheckTexts(t *testing.T, h *harness.History, want []string, warnings ...string) {
	t.Helper()
	if len(h.Sessions) != 1 {
		t.Fatalf("%d sessions, warnings %q; want one", len(h.Sessions), h.Warnings)
	}
	got := []string{}
	for _, m := range h.Sessions[0].Messages {
		got = append(got, m.Text)
	}
	if !slices.Equal(got, want) {
		t.Errorf("messages %q, want %q", got, want)
	}
	if !slices.Equal(h.Warnings, warnings) {
		t.Errorf("warnings %q, want %q", h.Warnings, warnings)
	}
}

// EachFile runs check, in a subtest named by each file's base name, on
// the file's path and bytes.
func EachFile(t *testing.T, files []string, check func(t *testing.T, path string, data []byte)) {
	t.Helper()
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			check(t, path, data)
		})
	}
}

// SniffHead is how many bytes of a file's start the indexer hands to a
// reader's Sniff.
const SniffHead = 8192

// CheckSniffHeads fails t unless sniff claims each file from its first
// SniffHead bytes, the head the indexer reads.
func CheckSniffHeads(t *testing.T, files []string, sniff func(path string, head []byte) error) {
	t.Helper()
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := sniff(path, data[:min(len(data), SniffHead)]); err != nil {
			t.Errorf("%s: %v", filepath.Base(path), err)
		}
	}
}
