package harness

import (
	"bufio"
	"bytes"
	"strings"
	"testing"
)

// TestReadLinesKeepsLongLinesWhole: the chunks a streamed parse is handed
// hold whole lines, whatever their length against the reader's buffer
// and the chunk: a line longer than the buffer that a chunk's end fell in
// was cut in two.
func TestReadLinesKeepsLongLinesWhole(t *testing.T) {
	var lines []string
	for i, n := range []int{10, 70000, 10, 200000, 5, 64 << 10, 64<<10 - 1, 64<<10 + 1, 3} {
		lines = append(lines, strings.Repeat(string(rune('a'+i)), n)+"\n")
	}
	data := strings.Join(lines, "") + "last line without its end"
	for _, chunk := range []int{1, 100, 70000, 1 << 20} {
		br := bufio.NewReaderSize(strings.NewReader(data), 64<<10)
		var got []byte
		for {
			buf, err := readLines(br, chunk)
			if err != nil {
				t.Fatal(err)
			}
			if len(buf) == 0 {
				break
			}
			if !bytes.HasSuffix(buf, []byte("\n")) && len(got)+len(buf) != len(data) {
				t.Fatalf("chunk %d: a chunk of %d bytes at %d ends inside a line", chunk, len(buf), len(got))
			}
			got = append(got, buf...)
		}
		if string(got) != data {
			t.Fatalf("chunk %d: read %d bytes, want %d", chunk, len(got), len(data))
		}
	}
}
