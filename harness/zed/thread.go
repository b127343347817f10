package zed

import (
	"strings"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/internal/jsonscan"
)

// call is a tool call's records, n of them from at in the session's
// records, waiting for its result.
type call struct {
	tool    string
	command string
	at, n   int
}

// session builds one thread's session as its messages are read.
type session struct {
	s       harness.Session
	roots   []string
	turn    int
	pending map[string]call
	skip    skipped
}

// buildSession turns one thread and its document (nil when it could not
// be read) into the neutral shape. A message's Line is its 1-based
// position in the document's messages.
func buildSession(id string, r threadRow, doc []byte, skip skipped) harness.Session {
	b := session{s: harness.Session{ID: id, Marker: r.Marker, Started: r.Created}, turn: -1, pending: map[string]call{}, skip: skip}
	if r.Parent != "" {
		// A parent of no shape ValidID takes is left to CheckIDs.
		b.s.Parent, b.s.Subagent = IDPrefix+r.Parent, true
	}
	// folder_paths is Zed's PathList: the workspace's folders, one a
	// line, sorted; a row from before it has the folders of the thread's
	// initial_project_snapshot. The first is the project.
	folders := strings.Split(r.Folders, "\n")
	if r.Folders == "" && doc != nil {
		folders = snapshotFolders(doc)
	}
	for _, p := range folders {
		if p = strings.TrimSpace(p); p != "" {
			b.roots = append(b.roots, p)
		}
	}
	if len(b.roots) > 0 {
		b.s.Project = b.roots[0]
	}
	if doc == nil {
		return b.s
	}
	ok := walkDocument(doc, func(m message, line int, ok bool) {
		if !ok {
			skip.add("messages of no shape Zed writes")
			return
		}
		switch {
		case m.kind == 'U' || m.kind == 'u' && !m.hidden:
			b.prompt(m.texts, line)
			b.mentions(m.files, line)
		case m.kind == 'A' || m.kind == 'a':
			b.answer(m.texts, line)
			for _, u := range m.uses {
				b.toolUse(u, line)
			}
		}
		// Results come after their calls in the same message, or (0.1.0)
		// in the user message after it.
		for _, r := range m.results {
			if c, ok := b.pending[r.id]; ok {
				delete(b.pending, r.id)
				endCall(b.s.Records[c.at:c.at+c.n], c, r)
			}
		}
	})
	if !ok {
		// What came before the damage is kept.
		skip.add("threads whose document is not Zed's JSON")
	}
	b.s.Records = keptRecords(b.s.Records)
	return b.s
}

// snapshotFolders are the folders of a document's initial_project_snapshot
// (ProjectSnapshot in thread.rs: worktree_snapshots, each a worktree_path).
func snapshotFolders(doc []byte) []string {
	var out []string
	sc := jsonscan.New(doc)
	sc.Object(func(key []byte) bool {
		if string(key) != "initial_project_snapshot" {
			return false
		}
		sc.Object(func(key []byte) bool {
			if string(key) != "worktree_snapshots" {
				return false
			}
			sc.Array(func() {
				sc.Object(func(key []byte) bool {
					if string(key) != "worktree_path" {
						return false
					}
					out = append(out, sc.String())
					return true
				})
			})
			return true
		})
		return true
	})
	return out
}

// prompt adds a user message when texts hold any, starting a turn.
func (b *session) prompt(texts []string, line int) {
	if text := join(texts); text != "" {
		b.turn++
		b.s.Messages = append(b.s.Messages, harness.Message{Role: harness.User, Text: text, Turn: b.turn, Line: line})
	}
}

func (b *session) answer(texts []string, line int) {
	if text := join(texts); text != "" {
		b.s.Messages = append(b.s.Messages, harness.Message{Role: harness.Assistant, Text: text, Turn: b.turn, Line: line})
	}
}

func join(texts []string) string {
	var kept []string
	for _, t := range texts {
		if t = strings.TrimSpace(t); t != "" {
			kept = append(kept, t)
		}
	}
	return strings.Join(kept, "\n\n")
}

// mentions adds the files a prompt @-mentions, whose content Zed inlined
// for the model, as added.
func (b *session) mentions(files []string, line int) {
	for _, f := range files {
		if v := b.path(f); v != "" {
			b.s.Records = append(b.s.Records, harness.Record{Kind: harness.FileRecord, Value: v, Action: harness.Added, Turn: b.turn, Line: line})
		}
	}
}

// path is a tool's or mention's path as a record keeps it: relative to
// the project where it lies in it. Zed's tools name a file by the name of
// one of the workspace's folders and the path below it
// ("backend/src/main.rs"), which is read against that folder.
func (b *session) path(p string) string {
	p = strings.TrimSpace(p)
	if p == "" {
		return ""
	}
	slashed := strings.ReplaceAll(p, `\`, "/")
	if !strings.HasPrefix(slashed, "/") && !(len(slashed) > 2 && slashed[1] == ':' && slashed[2] == '/') {
		first, rest, _ := strings.Cut(slashed, "/")
		for _, root := range b.roots {
			r := strings.TrimRight(strings.ReplaceAll(root, `\`, "/"), "/")
			if r[strings.LastIndexByte(r, '/')+1:] == first {
				p = r + "/" + rest
				break
			}
		}
	}
	return harness.RelPath(b.s.Project, p)
}
