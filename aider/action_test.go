package aider

import (
	"strconv"
	"testing"
)

// TestRecordActions pins which tool line means which action: an applied
// edit is an edit, a file added to the chat is added, a read-only add only
// read; commands have none.
func TestRecordActions(t *testing.T) {
	h := Parse([]byte("# aider chat started at 2024-05-01 10:00:00\n\n"+
		"> Added src/app.go to the chat.  \n"+
		"> Added docs/spec.md to the chat (read-only).  \n"+
		"> Added /etc/hosts to read-only files.  \n\n"+
		"#### fix it  \n\nDone.\n\n"+
		"> Applied edit to src/app.go  \n"+
		"> Running go test ./...  \n"), Options{Path: "/home/u/p/.aider.chat.history.md"})
	want := map[string]Record{
		"src/app.go@0":    {Kind: FileRecord, Action: "edited"},
		"src/app.go@-1":   {Kind: FileRecord, Action: "added"},
		"docs/spec.md@-1": {Kind: FileRecord, Action: "read"},
		"/etc/hosts@-1":   {Kind: FileRecord, Action: "read"},
		"go test ./...@0": {Kind: CommandRecord, Action: ""},
	}
	got := map[string]Record{}
	for _, r := range h.Sessions[0].Records {
		got[r.Value+"@"+strconv.Itoa(r.Turn)] = Record{Kind: r.Kind, Action: r.Action}
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("record %s = %+v, want %+v (all: %+v)", k, got[k], w, h.Sessions[0].Records)
		}
	}
}
