package codex

import (
	"bytes"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/klauspost/compress/zstd"
)

// TestCompressedRolloutReadsAsPlain pins that a .jsonl.zst rollout, as
// Codex rewrites week-old ones, yields what its plain form yields.
func TestCompressedRolloutReadsAsPlain(t *testing.T) {
	plain, err := os.ReadFile("testdata/double_logged_messages_read_once.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	packed := enc.EncodeAll(plain, nil)
	path := fixtureDir + "rollout-2025-12-25T22-45-23-019b55c1-d022-7061-bbb9-b0c90708472b.jsonl.zst"
	var r Reader
	if err := r.Sniff(path, packed[:min(len(packed), 64)]); err != nil {
		t.Fatalf("Sniff refused a compressed rollout: %v", err)
	}
	got, _, err := harness.ReadAll(path, bytes.NewReader(packed), r, harness.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	want := Parse(plain, harness.ParseOptions{Path: path})
	if h := Parse(got, harness.ParseOptions{Path: path}); !reflect.DeepEqual(h.Sessions, want.Sessions) || len(h.Sessions) != 1 {
		t.Fatalf("compressed rollout parsed to %+v, want %+v", h.Sessions, want.Sessions)
	}
	if _, _, err := harness.ReadAll(path, bytes.NewReader(append(zstdMagic[:4:4], 1, 2, 3)), r, harness.Limits{}); err == nil {
		t.Fatal("a damaged .zst decoded without an error")
	}
}

// TestZstdBombIsRefused: a .zst that decodes past the bound is refused as
// it is decoded, its bytes counted, never kept; before, the whole output
// was decoded into memory (a 786 KB file decoding to 8 GB cost 3.6 GB).
func TestZstdBombIsRefused(t *testing.T) {
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest))
	if err != nil {
		t.Fatal(err)
	}
	// 100 MB of zeros pack to a few KB.
	w := &bytes.Buffer{}
	enc.Reset(w)
	zeros := make([]byte, 1<<20)
	for range 100 {
		if _, err := enc.Write(zeros); err != nil {
			t.Fatal(err)
		}
	}
	if err := enc.Close(); err != nil {
		t.Fatal(err)
	}
	bomb := w.Bytes()
	path := "/home/u/.codex/sessions/rollout-2025-12-25T22-45-23-019b55c1-d022-7061-bbb9-b0c90708472b.jsonl.zst"
	_, _, err = harness.ReadAll(path, bytes.NewReader(bomb), Reader{}, harness.Limits{Decoded: 8 << 20})
	if !errors.Is(err, harness.ErrTooLarge) || !strings.Contains(err.Error(), "decodes to more than 8 MB") {
		t.Fatalf("a %d-byte .zst of 100 MB: err %v, want it refused past 8 MB", len(bomb), err)
	}
	// Under the bound it reads, its one long line dropped with a warning.
	data, dropped, err := harness.ReadAll(path, bytes.NewReader(bomb), Reader{}, harness.Limits{Line: 1 << 20})
	if err != nil || len(data) != 0 || len(dropped) != 1 {
		t.Fatalf("under the bound: %d bytes, warnings %v, err %v", len(data), dropped, err)
	}
}
