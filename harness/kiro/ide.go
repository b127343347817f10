package kiro

import (
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/continuedev"
)

// The IDE keeps its chats in <User>/globalStorage/kiro.kiroagent/
// workspace-sessions/<base64 of the workspace path>/: one <sessionId>.json
// per chat and a sessions.json index of them.
const (
	extensionDir = "kiro.kiroagent"
	sessionsDir  = "workspace-sessions"
	indexName    = "sessions.json"
)

// ideSessionID is the sessionId a file's path names, and whether the path
// is an IDE chat's: <sessionId>.json, not the index, one folder below
// workspace-sessions.
func ideSessionID(p string) (string, bool) {
	name := filepath.Base(p)
	id, ok := strings.CutSuffix(name, ".json")
	if !ok || name == indexName || !harness.IsToken(id) {
		return "", false
	}
	return id, filepath.Base(filepath.Dir(filepath.Dir(p))) == sessionsDir
}

// ReadIDESession reads one IDE chat file: one session, kiro-ide-<the
// sessionId its name gives>, its marker the file's size and time. The file is a Continue
// session file (the IDE's agent keeps Continue's layout: a sessions.json
// index with dateCreated beside <sessionId>.json, history of {message:
// {role, content}}), so continuedev.Parse reads it, start, prompts,
// answers and any tool calls included; the project, when the file names
// none, is the folder's decoded name. When opts.Unchanged reports it
// known, the file is not read.
func ReadIDESession(path string, opts harness.ParseOptions) (*harness.History, error) {
	id, ok := ideSessionID(path)
	if !ok {
		return nil, fmt.Errorf("%s: not a Kiro IDE chat (a <sessionId>.json under kiro.kiroagent/workspace-sessions/<workspace>)", path)
	}
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	marker := fmt.Sprintf("%d:%d", info.Size(), info.ModTime().UnixNano())
	if opts.Unchanged != nil && opts.Unchanged(idePrefix+id, marker) {
		return &harness.History{Path: path, Sessions: []harness.Session{{ID: idePrefix + id, Ordinal: 1, Marker: marker}}}, nil
	}
	data, err := harness.ReadSide(path, harness.MaxLine)
	if err != nil {
		return nil, err
	}
	h := continuedev.Parse(data, harness.ParseOptions{Path: path})
	for i := range h.Sessions {
		s := &h.Sessions[i]
		// Named by the file, as the marker's check above named it.
		s.ID = idePrefix + id
		s.Marker, s.Offset, s.End = marker, 0, 0
		if s.Project == "" {
			s.Project = workspaceOf(filepath.Base(filepath.Dir(path)))
		}
	}
	return h, nil
}

// workspaceOf decodes a workspace folder's name, the base64 of the
// workspace's path (URL-safe or standard, padded or not); "" when it is
// not one of an absolute path.
func workspaceOf(name string) string {
	for _, enc := range []*base64.Encoding{base64.RawURLEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.StdEncoding} {
		if b, err := enc.DecodeString(name); err == nil && isAbs(string(b)) && !strings.ContainsAny(string(b), "\x00\n\r") {
			return string(b)
		}
	}
	return ""
}
