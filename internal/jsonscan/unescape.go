package jsonscan

import (
	"bytes"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Unescape decodes the escapes of a JSON string's raw bytes (as
// RawString returns them). An invalid escape is kept as written; a lone
// surrogate and each byte of invalid UTF-8 become U+FFFD, as encoding/json
// makes them.
func Unescape(raw []byte) string {
	i := bytes.IndexByte(raw, '\\')
	if i < 0 && utf8.Valid(raw) {
		return string(raw)
	}
	if i < 0 {
		i = len(raw)
	}
	var b strings.Builder
	b.Grow(len(raw))
	writeValid(&b, raw[:i])
	for i < len(raw) {
		c := raw[i]
		if c != '\\' {
			j := bytes.IndexByte(raw[i:], '\\')
			if j < 0 {
				writeValid(&b, raw[i:])
				break
			}
			writeValid(&b, raw[i:i+j])
			i += j
			continue
		}
		if i+1 >= len(raw) {
			b.WriteByte(c)
			break
		}
		switch e := raw[i+1]; e {
		case '"', '\\', '/':
			b.WriteByte(e)
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'u':
			r, ok := hex4(raw[i+2:])
			if !ok {
				b.Write(raw[i : i+2])
				i += 2
				continue
			}
			i += 6
			if utf16.IsSurrogate(r) {
				if i+1 < len(raw) && raw[i] == '\\' && raw[i+1] == 'u' {
					if r2, ok := hex4(raw[i+2:]); ok {
						if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
							b.WriteRune(d)
							i += 6
							continue
						}
					}
				}
				r = utf8.RuneError
			}
			b.WriteRune(r)
			continue
		default:
			b.Write(raw[i : i+2])
		}
		i += 2
	}
	return b.String()
}

func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// writeValid writes p with each byte of invalid UTF-8 as U+FFFD.
func writeValid(b *strings.Builder, p []byte) {
	if utf8.Valid(p) {
		b.Write(p)
		return
	}
	for len(p) > 0 {
		r, n := utf8.DecodeRune(p)
		if r == utf8.RuneError && n == 1 {
			b.WriteRune(utf8.RuneError)
		} else {
			b.Write(p[:n])
		}
		p = p[n:]
	}
}
