package aider

import (
	"bytes"
	"path"
	"strings"

	"github.com/deja-dev/deja/harness"
)

// Tool-line templates that name a file or a command (FORMAT.md §4). Each is
// matched against the text after "> " with aider's two trailing spaces gone.
var (
	appliedEdit = []byte("Applied edit to ")
	added       = []byte("Added ")
	running     = []byte("Running ")
	// addedSuffixes end "Added F …" lines, each with the action it means:
	// a file added to the chat can be edited, a read-only one only read.
	addedSuffixes = []struct {
		text   []byte
		action harness.FileAction
	}{
		{[]byte(" to the chat (read-only)."), harness.Read},
		{[]byte(" to the chat (read-only)"), harness.Read},
		{[]byte(" to the chat."), harness.Added},
		{[]byte(" to the chat"), harness.Added},
		{[]byte(" to read-only files."), harness.Read},
		{[]byte(" to read-only files"), harness.Read},
	}
)

// toolRecord returns the record a tool line yields, if any: "Applied edit
// to F" is a file edited, "Added F to the chat" a file added, a read-only
// add a file read, "Running C" a command.
func toolRecord(text []byte) (Record, bool) {
	switch {
	case bytes.HasPrefix(text, appliedEdit):
		return fileValue(text[len(appliedEdit):], harness.Edited)
	case bytes.HasPrefix(text, running):
		cmd := bytes.TrimSpace(text[len(running):])
		if len(cmd) == 0 {
			return Record{}, false
		}
		return Record{Kind: CommandRecord, Value: string(cmd)}, true
	case bytes.HasPrefix(text, added):
		rest := text[len(added):]
		for _, s := range addedSuffixes {
			if bytes.HasSuffix(rest, s.text) {
				return addedFile(rest[:len(rest)-len(s.text)], s.action)
			}
		}
	}
	return Record{}, false
}

// addedFile rejects the "Added …" lines that look like files but are not:
// "Added 12 lines of output to the chat.", "Added clipboard image to the
// chat: …", "Added 3 files from directory D to read-only files.".
func addedFile(x []byte, action harness.FileAction) (Record, bool) {
	if n := leadingDigits(x); n > 0 && n < len(x) {
		rest := x[n:]
		if bytes.HasPrefix(rest, []byte(" lines of output")) || bytes.HasPrefix(rest, []byte(" files from directory ")) {
			return Record{}, false
		}
	}
	if bytes.HasPrefix(x, []byte("clipboard image")) {
		return Record{}, false
	}
	return fileValue(x, action)
}

func leadingDigits(b []byte) int {
	n := 0
	for n < len(b) && b[n] >= '0' && b[n] <= '9' {
		n++
	}
	return n
}

func fileValue(x []byte, action harness.FileAction) (Record, bool) {
	x = bytes.TrimSpace(x)
	if len(x) == 0 {
		return Record{}, false
	}
	return Record{Kind: FileRecord, Value: string(x), Action: action}, true
}

// normalizeFile writes the path with "/" separators, relative to the
// history's directory when it lies under it; other absolute paths stay
// absolute. aider writes paths relative to the git root, which is the
// history's directory in the default set-up, absolute ones for /read-only
// and for /add before v0.67.0, and "\" on Windows.
func normalizeFile(p, historyDir string) string {
	if strings.IndexByte(p, '\\') >= 0 {
		p = strings.ReplaceAll(p, `\`, "/")
	}
	if historyDir != "" && strings.HasPrefix(p, historyDir) {
		rest := p[len(historyDir):]
		if historyDir == "/" {
			return path.Clean(rest)
		}
		if len(rest) > 1 && rest[0] == '/' {
			return path.Clean(rest[1:])
		}
	}
	if strings.Contains(p, "./") || strings.Contains(p, "//") {
		return path.Clean(p)
	}
	return p
}
