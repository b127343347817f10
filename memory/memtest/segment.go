package memtest

import (
	"encoding/binary"
	"github.com/deja-dev/deja/memory/store"
	"github.com/deja-dev/deja/memory/store/segment"
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// sessionHash is the part of an aider session ID that comes from its path.
var SessionHash = regexp.MustCompile(`aider-[0-9a-f]{12}-`)

// segmentFile is the one segment file of the store, read whole.
func SegmentFile(t *testing.T, s *store.Store) (string, []byte) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(s.Dir(), segment.VectorDir, "*.seg"))
	if len(files) != 1 {
		t.Fatalf("segment files %v, want one", files)
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	return files[0], b
}

// countBlocks counts the blocks of a segment and the markers they hold.
func CountBlocks(b []byte) (blocks, markers int) {
	for len(b) >= segment.BlockHead {
		n := int(binary.LittleEndian.Uint32(b[8:]))
		nd := int(binary.LittleEndian.Uint32(b[12:]))
		ns := int(binary.LittleEndian.Uint32(b[16:]))
		dim := int(binary.LittleEndian.Uint32(b[4:]))
		p := segment.BlockHead + 12*nd
		for range ns {
			for range 4 {
				p += 2 + int(binary.LittleEndian.Uint16(b[p:]))
			}
			p += 10
		}
		p += n*16 + n*4*dim + 4
		blocks++
		markers += nd
		b = b[p:]
	}
	return blocks, markers
}
