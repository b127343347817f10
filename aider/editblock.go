package aider

import (
	"path"
	"strings"

	"github.com/deja-dev/deja/harness"
)

// editBlock is one SEARCH/REPLACE block of a reply: the file it names and
// the text it replaces and writes.
type editBlock struct {
	file, old, new string
}

// editBlocks finds the SEARCH/REPLACE blocks of a reply as aider's
// find_original_update_blocks does: the file is the nearest of the three
// lines before the SEARCH line, looking past fence lines (strip_filename),
// else the block before's file; the old text runs to the divider, the new
// to the REPLACE line (or a second divider). A block left open is none.
func editBlocks(reply string) []editBlock {
	var out []editBlock
	current := ""
	rest := reply
	for {
		// Jump from one " SEARCH" to the next: most of a reply is text.
		ls, le, ok := markerLine(rest, " SEARCH", '<', " SEARCH")
		if !ok {
			break
		}
		if f := blockFile(linesBefore(rest[:ls], 3)); f != "" {
			current = f
		}
		body := rest[min(le+1, len(rest)):]
		ds, de, ok := markerLine(body, "=====", '=', "")
		if !ok {
			break
		}
		tail := body[min(de+1, len(body)):]
		rs, re, ok := markerLine(tail, " REPLACE", '>', " REPLACE")
		if ds2, de2, ok2 := markerLine(tail, "=====", '=', ""); ok2 && (!ok || ds2 < rs) {
			rs, re, ok = ds2, de2, true
		}
		if !ok {
			break
		}
		if current != "" {
			out = append(out, editBlock{current, strings.TrimSuffix(body[:ds], "\n"), strings.TrimSuffix(tail[:rs], "\n")})
		}
		rest = tail[min(re+1, len(tail)):]
	}
	return out
}

// markerLine finds the first line of s that holds needle and is a marker
// of c and word, returning where the line starts and ends.
func markerLine(s, needle string, c byte, word string) (int, int, bool) {
	from := 0
	for {
		i := strings.Index(s[from:], needle)
		if i < 0 {
			return 0, 0, false
		}
		i += from
		start := strings.LastIndexByte(s[:i], '\n') + 1
		end := len(s)
		if j := strings.IndexByte(s[i:], '\n'); j >= 0 {
			end = i + j
		}
		if isMarker(s[start:end], c, word) {
			return start, end, true
		}
		from = end
	}
}

// linesBefore returns up to n lines that end s, in order.
func linesBefore(s string, n int) []string {
	s = strings.TrimSuffix(s, "\n")
	var out []string
	for len(out) < n && s != "" {
		i := strings.LastIndexByte(s, '\n')
		out = append([]string{s[i+1:]}, out...)
		if i < 0 {
			break
		}
		s = s[:i]
	}
	return out
}

// isMarker matches aider's marker lines, stripped: five to nine of c, then
// word (" SEARCH" may end in ">"), then nothing (HEAD, DIVIDER, UPDATED in
// coders/editblock_coder.py).
func isMarker(l string, c byte, word string) bool {
	l = strings.TrimSpace(l)
	n := 0
	for n < len(l) && l[n] == c {
		n++
	}
	if n < 5 || n > 9 {
		return false
	}
	rest := l[n:]
	if word == " SEARCH" {
		rest = strings.TrimSuffix(rest, ">")
	}
	return rest == word
}

// blockFile is find_filename over the lines before a SEARCH line: the
// nearest line that names a file, going back only past fence lines.
func blockFile(before []string) string {
	for i := len(before) - 1; i >= 0; i-- {
		l := strings.TrimSpace(before[i])
		if rest, ok := strings.CutPrefix(l, "```"); ok {
			if rest != "" && strings.ContainsAny(rest, "./") {
				return rest
			}
			continue
		}
		if l == "..." {
			return ""
		}
		l = strings.TrimRight(l, ":")
		l = strings.TrimLeft(l, "#")
		l = strings.Trim(strings.TrimSpace(l), "`*")
		return l
	}
	return ""
}

// appliedSpans are the spans of the blocks of reply that aider applied to
// file, named as its "Applied edit to" line names it. aider writes those
// lines only when every block of the reply matched (apply_edits raises
// otherwise), and names the file a block was applied to: the block's own
// name, or a file in the chat whose base name the block gave. A block
// naming another file may have gone elsewhere, and gives no span.
func appliedSpans(blocks []editBlock, file string) []harness.Span {
	file = strings.ReplaceAll(file, `\`, "/")
	var out []harness.Span
	for _, b := range blocks {
		name := strings.ReplaceAll(b.file, `\`, "/")
		if name != file && name != path.Base(file) {
			continue
		}
		o, cutOld := harness.ClipSpan(b.old)
		n, cutNew := harness.ClipSpan(b.new)
		out = append(out, harness.Span{Old: o, New: n, Clipped: cutOld || cutNew})
	}
	return out
}
