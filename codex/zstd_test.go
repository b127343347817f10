package codex

import (
	"os"
	"reflect"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/deja-dev/deja/harness"
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
	got, err := r.Decode(path, packed)
	if err != nil {
		t.Fatal(err)
	}
	want := Parse(plain, harness.ParseOptions{Path: path})
	if h := Parse(got, harness.ParseOptions{Path: path}); !reflect.DeepEqual(h.Sessions, want.Sessions) || len(h.Sessions) != 1 {
		t.Fatalf("compressed rollout parsed to %+v, want %+v", h.Sessions, want.Sessions)
	}
	if _, err := r.Decode(path, append(zstdMagic[:4:4], 1, 2, 3)); err == nil {
		t.Fatal("a damaged .zst decoded without an error")
	}
}
