package dsh

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// batches splits a fixture as dsh appends it: the header in a frame of
// its own, then one frame per turn.
func batches(data []byte) [][]byte {
	header, rest, _ := bytes.Cut(data, []byte("\n"))
	out := [][]byte{append(header, '\n')}
	for _, b := range bytes.SplitAfter(rest, []byte("\"reason\":\"completed\"}}\n")) {
		if len(b) > 0 {
			out = append(out, b)
		}
	}
	return out
}

const zstdPath = fixtureProject + "/session-6f0d2c4e-8b1a-4c3e-9d5f-2a7b8c9d0e1f/session.jsonl.zstd"

// TestCompressedLogReadsAsPlain: a log written as consecutive zstd frames,
// dsh's default, yields what its plain form yields, read as the indexer
// reads it (Sniff on the raw head, then ReadAll through Decode).
func TestCompressedLogReadsAsPlain(t *testing.T) {
	plain := harnesstest.ReadFixture(t, "basic.jsonl")
	parts := batches(plain)
	if len(parts) < 3 {
		t.Fatalf("basic.jsonl split into %d frames, want a header and two turns", len(parts))
	}
	packed := frames(t, parts)
	if err := (Reader{}).Sniff(zstdPath, packed[:8]); err != nil {
		t.Fatalf("Sniff refused a compressed log: %v", err)
	}
	got, _, err := harness.ReadAll(zstdPath, bytes.NewReader(packed), Reader{}, harness.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, plain) {
		t.Fatalf("decoded %d bytes, want the %d of the plain log", len(got), len(plain))
	}
	want := Parse(plain, harness.ParseOptions{Path: zstdPath})
	if h := Parse(got, harness.ParseOptions{Path: zstdPath}); !reflect.DeepEqual(h, want) || len(h.Sessions) != 1 {
		t.Fatalf("compressed log parsed to %+v, want %+v", h.Sessions, want.Sessions)
	}
}

// TestTornFinalFrame: dsh writing its next batch (or killed while it
// wrote) leaves a final frame cut short. The frames before it are read
// whole, and of the torn one what decodes, its unfinished line left for
// the next index; before, it would have failed the whole log.
func TestTornFinalFrame(t *testing.T) {
	plain := harnesstest.ReadFixture(t, "basic.jsonl")
	parts := batches(plain)
	whole := frames(t, parts[:len(parts)-1])
	last := frames(t, parts[len(parts)-1:])
	for _, cut := range []int{1, 6, len(last) / 2, len(last) - 1} {
		torn := append(bytes.Clone(whole), last[:cut]...)
		got, _, err := harness.ReadAll(zstdPath, bytes.NewReader(torn), Reader{}, harness.Limits{})
		if err != nil {
			t.Fatalf("torn at %d of %d: %v", cut, len(last), err)
		}
		before := len(plain) - len(parts[len(parts)-1])
		if len(got) < before || !bytes.Equal(got, plain[:len(got)]) {
			t.Fatalf("torn at %d: decoded %d bytes, not the %d of the whole frames and then the log's own", cut, len(got), before)
		}
		h := Parse(got, harness.ParseOptions{Path: zstdPath})
		harnesstest.CheckParse(t, h, len(got), Reader{}, 1)
		if n := len(h.Sessions[0].Messages); n < 3 {
			t.Fatalf("torn at %d: %d messages, want the first turn's 3 at least", cut, n)
		}
	}
}

// TestDamagedFrameFails: damage inside a frame that is not the last is
// an error, not a log silently cut short.
func TestDamagedFrameFails(t *testing.T) {
	plain := harnesstest.ReadFixture(t, "basic.jsonl")
	packed := frames(t, batches(plain))
	bad := bytes.Clone(packed)
	bad[len(bad)/3] ^= 0xff
	bad[len(bad)/3+1] ^= 0xff
	if _, _, err := harness.ReadAll(zstdPath, bytes.NewReader(bad), Reader{}, harness.Limits{}); err == nil || !strings.Contains(err.Error(), "zstd session log") {
		t.Fatalf("a damaged frame: err %v, want it refused", err)
	}
}

// TestZstdBombIsRefused: a log that decodes past the bound is refused as
// it is decoded, never held.
func TestZstdBombIsRefused(t *testing.T) {
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest))
	if err != nil {
		t.Fatal(err)
	}
	bomb := enc.EncodeAll(make([]byte, 32<<20), nil)
	_, _, err = harness.ReadAll(zstdPath, bytes.NewReader(bomb), Reader{}, harness.Limits{Decoded: 4 << 20})
	if !errors.Is(err, harness.ErrTooLarge) {
		t.Fatalf("a %d-byte log of 32 MB: err %v, want it refused past 4 MB", len(bomb), err)
	}
}

// TestPlainLogDecodesAsItIs: a log dsh wrote with compression "none"
// passes Decode unchanged.
func TestPlainLogDecodesAsItIs(t *testing.T) {
	plain := harnesstest.ReadFixture(t, "basic.jsonl")
	got, _, err := harness.ReadAll(fixturePath("basic.jsonl"), bytes.NewReader(plain), Reader{}, harness.Limits{})
	if err != nil || !bytes.Equal(got, plain) {
		t.Fatalf("plain log: %d bytes, err %v", len(got), err)
	}
}
