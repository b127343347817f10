package kiro

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// BenchmarkRead reads a store of 200 conversations of 20 entries each (a
// prompt, an answer that reads, edits and runs, their results); its MB/s
// is of the conversations' values.
func BenchmarkRead(b *testing.B) {
	db := filepath.Join(b.TempDir(), storeName)
	var script strings.Builder
	script.WriteString(schemaV2)
	var size int64
	for c := range 200 {
		id := fmt.Sprintf("3f2504e0-4f89-41d3-9a0c-%012d", c)
		var v strings.Builder
		fmt.Fprintf(&v, `{"conversation_id": "%s", "history": [`, id)
		for e := range 10 {
			if e > 0 {
				v.WriteString(",")
			}
			fmt.Fprintf(&v, `{"user": {"content": {"Prompt": {"prompt": "Step %d: %s"}}, "timestamp": "2026-06-03T05:%02d:00Z"},
 "assistant": {"ToolUse": {"content": "%s", "tool_uses": [
  {"id": "r%d", "name": "fs_read", "args": {"operations": [{"mode": "Line", "path": "/home/u/api/main.go"}]}},
  {"id": "w%d", "name": "fs_write", "args": {"command": "str_replace", "path": "/home/u/api/main.go", "old_str": "%s", "new_str": "%s"}},
  {"id": "x%d", "name": "execute_bash", "args": {"command": "go test ./..."}}]}},
 "request_metadata": {"request_start_timestamp_ms": 1780462801000, "stream_end_timestamp_ms": 1780462803000}},
{"user": {"content": {"ToolUseResults": {"tool_use_results": [
  {"tool_use_id": "r%d", "content": [{"Text": "%s"}], "status": "Success"},
  {"tool_use_id": "x%d", "content": [{"Json": {"exit_status": "1", "stdout": "%s", "stderr": "FAIL"}}], "status": "Success"}]}}},
 "assistant": {"Response": {"content": "%s"}}}`,
				e, strings.Repeat("fix the failing test ", 10), e%60, strings.Repeat("I will read and fix it. ", 20), e, e,
				strings.Repeat("old line\\n", 10), strings.Repeat("new line\\n", 10), e, e, strings.Repeat("package main\\n", 50), e,
				strings.Repeat("ok  \\tpkg\\n", 30), strings.Repeat("The tests pass now. ", 20))
		}
		v.WriteString("]}")
		size += int64(v.Len())
		fmt.Fprintf(&script, "INSERT INTO conversations_v2 VALUES ('/home/u/api', '%s', '%s', %d, %d);\n", id, v.String(), c, c)
	}
	harnesstest.SQLiteStore(b, db, script.String())
	harnesstest.BenchBytes(b, size, func() {
		h, err := ReadStore(context.Background(), db, nil)
		if err != nil || len(h.Sessions) != 200 || len(h.Sessions[0].Messages) != 30 || len(h.Sessions[0].Records) != 30 {
			b.Fatalf("%v, %+v", err, h.Warnings)
		}
	})
}

// BenchmarkReadIDE reads an IDE chat of 400 messages.
func BenchmarkReadIDE(b *testing.B) {
	var v strings.Builder
	v.WriteString(`{"sessionId": "0b7c1a52-9f3e-4d61-a2b8-5c4d3e2f1a09", "workspacePath": "/home/u/shop", "history": [`)
	for i := range 400 {
		if i > 0 {
			v.WriteString(",")
		}
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		fmt.Fprintf(&v, `{"message": {"role": "%s", "content": [{"type": "text", "text": "%s"}]}}`, role, strings.Repeat("Add the cart to the page. ", 30))
	}
	v.WriteString("]}")
	p := harnesstest.WriteFile(b, filepath.Join(b.TempDir(), sessionsDir, wsName, chatName), v.String())
	harnesstest.BenchBytes(b, int64(v.Len()), func() {
		h, err := ReadIDESession(p, harness.ParseOptions{})
		if err != nil || len(h.Sessions[0].Messages) != 400 {
			b.Fatal(err)
		}
	})
}

// BenchmarkSessionFile reads a v2 session file of 200 turns (a prompt, an
// answer that reads, edits and runs, their results, a closing answer);
// its MB/s is of the file.
func BenchmarkSessionFile(b *testing.B) {
	var v strings.Builder
	for e := range 200 {
		v.WriteString(v2Prompt(fmt.Sprintf("p%d", e), strings.Repeat("fix the failing test ", 10)))
		fmt.Fprintf(&v, `{"version":"v1","kind":"AssistantMessage","data":{"message_id":"a%d","content":[{"kind":"text","data":"%s"},`+
			`{"kind":"toolUse","data":{"toolUseId":"r%d","name":"read","input":{"operations":[{"mode":"Line","path":"/home/u/api/main.go"}]}}},`+
			`{"kind":"toolUse","data":{"toolUseId":"w%d","name":"write","input":{"command":"strReplace","path":"/home/u/api/main.go","oldStr":"%s","newStr":"%s"}}},`+
			`{"kind":"toolUse","data":{"toolUseId":"x%d","name":"shell","input":{"command":"go test ./..."}}}]}}`+"\n",
			e, strings.Repeat("I will read and fix it. ", 20), e, e, strings.Repeat(`old line\n`, 10), strings.Repeat(`new line\n`, 10), e)
		fmt.Fprintf(&v, `{"version":"v1","kind":"ToolResults","data":{"content":[{"kind":"toolResult","data":{"toolUseId":"r%d","content":[{"kind":"text","data":"%s"}],"status":"success"}},`+
			`{"kind":"toolResult","data":{"toolUseId":"x%d","content":[{"kind":"json","data":{"exit_status":"exit status: 1","stdout":"%s","stderr":"FAIL"}}],"status":"success"}}]}}`+"\n",
			e, strings.Repeat(`package main\n`, 50), e, strings.Repeat(`ok  \tpkg\n`, 30))
		fmt.Fprintf(&v, `{"version":"v1","kind":"AssistantMessage","data":{"message_id":"b%d","content":[{"kind":"text","data":"%s"}]}}`+"\n", e, strings.Repeat("The tests pass now. ", 20))
	}
	p := harnesstest.WriteFile(b, filepath.Join(b.TempDir(), sessionsRoot, cliDir, convID+".jsonl"), v.String())
	harnesstest.BenchBytes(b, int64(v.Len()), func() {
		h, err := ReadSessionFile(p, harness.ParseOptions{})
		if err != nil || len(h.Sessions) != 1 || len(h.Sessions[0].Records) != 600 {
			b.Fatalf("%v %+v", err, h)
		}
	})
}
