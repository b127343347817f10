package quote

import (
	"strings"
	"testing"
)

// BenchmarkTextCJK is Text of clean text in the scripts unsafe skips the
// table look-up for: CJK, kana and Hangul.
func BenchmarkTextCJK(b *testing.B) {
	s := strings.Repeat("漢字かなカナ한국어 テキスト\n", 20000)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		Text(s)
	}
}
