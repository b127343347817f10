package embed

import (
	"unicode"
	"unicode/utf8"
)

// The built-in embedder's tokenizer knows how developers write: it reads
// identifiers, paths and dotted names as the words inside them. Text is cut
// into runs of letters and digits (so snake_case, kebab-case, paths and
// dotted names fall apart on their punctuation, and pure punctuation
// disappears), and each run is lower-cased and looked up. A run the table
// does not know is split at its camelCase humps ("tenantID" → tenant id,
// "HTTPServer" → http server) and each part is tried again, then at
// letter–digit boundaries ("sha256sum" → sha 256 sum). Trying the whole run
// first keeps words GloVe knows whole, such as "javascript" or "github".

// forEachWord calls fn with the table index of every known word in text, in
// order. scratch is reused for lower-casing and returned for the next call.
func (t *table) forEachWord(text string, scratch []byte, fn func(index int)) []byte {
	start := -1
	for i, r := range text {
		if isWordRune(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			scratch = t.run(text[start:i], scratch, fn)
			start = -1
		}
	}
	if start >= 0 {
		scratch = t.run(text[start:], scratch, fn)
	}
	return scratch
}

// run looks up one run of letters and digits, splitting it only when the
// whole is unknown.
func (t *table) run(s string, scratch []byte, fn func(int)) []byte {
	scratch = appendLower(scratch[:0], s)
	if i, ok := t.lookup(scratch); ok {
		fn(i)
		return scratch
	}
	for part := range splitAt(s, camelHump) {
		scratch = appendLower(scratch[:0], part)
		if i, ok := t.lookup(scratch); ok {
			fn(i)
			continue
		}
		for piece := range splitAt(part, letterDigit) {
			if len(piece) == len(part) {
				break
			}
			scratch = appendLower(scratch[:0], piece)
			if i, ok := t.lookup(scratch); ok {
				fn(i)
			}
		}
	}
	return scratch
}

// splitAt yields the pieces of s cut before every rune where boundary
// says so; boundary sees the previous, current and next rune (next is
// utf8.RuneError at the end).
func splitAt(s string, boundary func(prev, cur, next rune) bool) func(yield func(string) bool) {
	return func(yield func(string) bool) {
		start := 0
		prev := utf8.RuneError
		for i, cur := range s {
			next := utf8.RuneError
			if j := i + utf8.RuneLen(cur); j < len(s) {
				next, _ = utf8.DecodeRuneInString(s[j:])
			}
			if i > start && boundary(prev, cur, next) {
				if !yield(s[start:i]) {
					return
				}
				start = i
			}
			prev = cur
		}
		if start < len(s) {
			yield(s[start:])
		}
	}
}

// camelHump marks where a camelCase word starts: a capital after a
// lower-case letter or digit ("tenant|ID", "v2|Api"), or the last capital
// of an acronym that a lower-case letter follows ("HTTP|Server").
func camelHump(prev, cur, next rune) bool {
	if !unicode.IsUpper(cur) {
		return false
	}
	return unicode.IsLower(prev) || unicode.IsDigit(prev) ||
		(unicode.IsUpper(prev) && unicode.IsLower(next))
}

// letterDigit marks a change between letters and digits ("sha|256|sum").
func letterDigit(prev, cur, _ rune) bool {
	return unicode.IsDigit(prev) != unicode.IsDigit(cur)
}

func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

func appendLower(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf {
			for _, r := range s[i:] {
				dst = utf8.AppendRune(dst, unicode.ToLower(r))
			}
			return dst
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst
}
