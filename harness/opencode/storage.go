package opencode

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/internal/jsonscan"
)

// storageLayout says where one generation of the JSON storage tree keeps
// its files (FORMATS.md §4.1; json-migration.ts).
type storageLayout struct {
	// sessions are the session files' directory pattern, relative to the
	// storage directory.
	sessions string
	// messages is the directory of a session's messages.
	messages func(root, session string) string
	// parts is the directory of a message's parts.
	parts func(root, session, message string) string
}

var (
	// layoutGlobal is 1.0–1.1: storage/session/<projectID>/<ses>.json,
	// storage/message/<ses>/<msg>.json, storage/part/<msg>/<prt>.json
	// (parts keyed by message, not session).
	layoutGlobal = storageLayout{
		sessions: filepath.Join("session", "*", "*.json"),
		messages: func(root, ses string) string { return filepath.Join(root, "message", ses) },
		parts:    func(root, _, msg string) string { return filepath.Join(root, "part", msg) },
	}
	// layoutProject is 0.5: project/<id>/storage/session/info/<ses>.json,
	// session/message/<ses>/<msg>.json, session/part/<ses>/<msg>/<prt>.json.
	layoutProject = storageLayout{
		sessions: filepath.Join("session", "info", "*.json"),
		messages: func(root, ses string) string { return filepath.Join(root, "session", "message", ses) },
		parts:    func(root, ses, msg string) string { return filepath.Join(root, "session", "part", ses, msg) },
	}
)

// isStorageDir reports whether dir is a JSON storage tree of either
// generation: a directory named storage that holds session/.
func isStorageDir(dir string) bool {
	if filepath.Base(dir) != "storage" {
		return false
	}
	fi, err := os.Stat(filepath.Join(dir, "session"))
	return err == nil && fi.IsDir()
}

// ReadStorage reads every session of a JSON storage tree, the layout of
// OpenCode before its SQLite store. Files are read as they are at the
// moment; one that is not JSON, or vanished under the read (OpenCode
// writes each file whole), is skipped and counted.
func ReadStorage(ctx context.Context, root string) (*harness.History, error) {
	layout := layoutGlobal
	if fi, err := os.Stat(filepath.Join(root, "session", "info")); err == nil && fi.IsDir() {
		layout = layoutProject
	}
	files, err := filepath.Glob(filepath.Join(root, layout.sessions))
	if err != nil {
		return nil, err
	}
	r := storageReader{root: root, layout: layout, skip: skipped{}}
	var infos []sessionInfo
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		var s sessionInfo
		data, mod, ok := r.read(f)
		if !ok || !decodeSession(&r.sc, data, &s) {
			r.skip.add("session files that are not JSON")
			continue
		}
		if s.ID == "" {
			s.ID = strings.TrimSuffix(filepath.Base(f), ".json")
		}
		s.Changed = max(s.Updated, mod)
		infos = append(infos, s)
	}
	sort.Slice(infos, func(i, j int) bool {
		if infos[i].Created != infos[j].Created {
			return infos[i].Created < infos[j].Created
		}
		return infos[i].ID < infos[j].ID
	})
	h := &harness.History{Path: root}
	for i := range infos {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		msgs := r.messages(&infos[i])
		s := buildSession(infos[i], msgs)
		s.Ordinal = i + 1
		h.Sessions = append(h.Sessions, s)
	}
	h.Warnings = r.skip.list()
	return h, nil
}

type storageReader struct {
	root   string
	layout storageLayout
	sc     jsonscan.Scanner
	skip   skipped
}

// read returns a file's bytes and its modification time in epoch
// milliseconds.
func (r *storageReader) read(path string) ([]byte, int64, bool) {
	f, err := harness.OpenSide(path)
	if err != nil {
		return nil, 0, false
	}
	data, err := io.ReadAll(f)
	f.Close()
	if err != nil {
		return nil, 0, false
	}
	var mod int64
	if fi, err := os.Stat(path); err == nil {
		mod = fi.ModTime().UnixMilli()
	}
	return data, mod, true
}

// messages reads one session's messages and their parts, in id order.
func (r *storageReader) messages(s *sessionInfo) []messageInfo {
	var msgs []messageInfo
	for _, f := range jsonFiles(r.layout.messages(r.root, s.ID)) {
		var m messageInfo
		data, mod, ok := r.read(f)
		if !ok || !decodeMessage(&r.sc, data, &m) {
			r.skip.add("message files that are not JSON")
			continue
		}
		if r.skip.unknownRole(&m) {
			continue
		}
		// json-migration.ts takes ids from the file names.
		m.ID, m.Session = strings.TrimSuffix(filepath.Base(f), ".json"), s.ID
		s.Changed = max(s.Changed, mod)
		for _, pf := range jsonFiles(r.layout.parts(r.root, s.ID, m.ID)) {
			var p partInfo
			data, mod, ok := r.read(pf)
			if !ok || !decodePart(&r.sc, data, &p) {
				r.skip.add("part files that are not JSON")
				continue
			}
			if r.skip.unknownPart(&p) {
				continue
			}
			p.ID, p.Message = strings.TrimSuffix(filepath.Base(pf), ".json"), m.ID
			s.Changed = max(s.Changed, mod)
			s.Parts++
			m.Parts = append(m.Parts, p)
		}
		msgs = append(msgs, m)
	}
	sort.SliceStable(msgs, func(i, j int) bool {
		if msgs[i].Created != msgs[j].Created {
			return msgs[i].Created < msgs[j].Created
		}
		return msgs[i].ID < msgs[j].ID
	})
	return msgs
}

// jsonFiles lists the .json files of dir in name order (ids sort by
// creation); a missing directory has none.
func jsonFiles(dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".json") {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	return out
}
