package memtest

import (
	"fmt"
)

const TranscriptID = "11111111-2222-4333-8444-555555555555"

func ClaudeLine(n int, typ, content string, extra string) string {
	return fmt.Sprintf(`{"type":%q,"uuid":"u%d","sessionId":%q,"cwd":"/srv/shop","timestamp":"2026-07-20T10:%02d:00.000Z"%s,"message":{"role":%q,"content":%s}}`+"\n",
		typ, n, TranscriptID, n, extra, typ, content)
}
