package goose

import (
	"bytes"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/internal/jsonscan"
)

// Goose before 1.10 kept each session in <data dir>/sessions/<name>.jsonl
// (session/storage.rs): a first line of metadata ({working_dir,
// description, message_count, schedule_id, token counts}), then one
// Message a line ({id, role, created, content, metadata}), the whole file
// rewritten on every save. 1.10 imports them into sessions.db once, when
// it makes the store, under the file's name, and leaves them on disk.

// maxLegacy bounds a legacy file deja reads; Goose itself refuses files
// over 50 MB (legacy.rs MAX_FILE_SIZE).
const maxLegacy = harness.MaxDecoded

// ReadLegacy reads one legacy session file; a file that unchanged says
// the caller holds with its marker comes back with its ID and Marker
// alone, unread.
func ReadLegacy(path string, unchanged func(id, marker string) bool) (*harness.History, error) {
	h := &harness.History{Path: path}
	s, warnings, err := readLegacyFile(path, unchanged)
	if err != nil {
		return nil, err
	}
	s.Ordinal = 1
	h.Sessions = append(h.Sessions, s)
	h.Warnings = append(h.Warnings, warnings...)
	return h, nil
}

// readLegacyBeside adds to h the legacy files in the store's directory
// whose sessions the store does not hold (held): those Goose failed to
// import, or that an older Goose sharing the directory wrote after the
// store was made. The ones it holds are the same sessions, and are read
// from the store alone.
func readLegacyBeside(h *harness.History, store string, held map[string]bool, unchanged func(id, marker string) bool) {
	files, _ := filepath.Glob(filepath.Join(filepath.Dir(store), "*.jsonl"))
	sort.Strings(files)
	for _, f := range files {
		if held[legacyName(f)] {
			continue
		}
		s, warnings, err := readLegacyFile(f, unchanged)
		if err != nil {
			h.Warnings = append(h.Warnings, err.Error())
			continue
		}
		h.Sessions = append(h.Sessions, s)
		for _, w := range warnings {
			h.Warnings = append(h.Warnings, filepath.Base(f)+": "+w)
		}
	}
}

// legacyName is Goose's name of a legacy session: its file's name less
// .jsonl.
func legacyName(path string) string { return strings.TrimSuffix(filepath.Base(path), ".jsonl") }

// readLegacyFile reads a legacy file into a session, its marker the
// file's size and modification time.
func readLegacyFile(path string, unchanged func(id, marker string) bool) (harness.Session, []string, error) {
	f, err := harness.OpenSide(path)
	if err != nil {
		return harness.Session{}, nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return harness.Session{}, nil, err
	}
	info := sessionInfo{ID: legacyName(path), Marker: fmt.Sprintf("%d/%d", fi.Size(), fi.ModTime().UnixNano())}
	if unchanged != nil && unchanged(IDPrefix+info.ID, info.Marker) {
		return harness.Session{ID: IDPrefix + info.ID, Marker: info.Marker}, nil, nil
	}
	if fi.Size() > maxLegacy {
		return harness.Session{}, nil, fmt.Errorf("%s: %w: a legacy Goose session of more than %d MB", path, harness.ErrTooLarge, maxLegacy>>20)
	}
	data, bounded, err := harness.ReadAll(path, f, nil, harness.Limits{})
	if err != nil {
		return harness.Session{}, nil, fmt.Errorf("%s: %w", path, err)
	}
	s, warnings := parseLegacy(info, data)
	return s, append(bounded, warnings...), nil
}

// parseLegacy reads a legacy file's bytes into a session.
func parseLegacy(info sessionInfo, data []byte) (harness.Session, []string) {
	var msgs []message
	var lines []int
	var warn harness.Warnings
	var sc jsonscan.Scanner
	l := harness.NewLines(data)
	for l.Next() {
		line := bytes.TrimSpace(l.Line)
		if len(line) == 0 {
			continue
		}
		if l.Number == 1 && isMetadata(line) {
			decodeLegacyMetadata(&sc, line, &info)
			continue
		}
		var m message
		if !decodeLegacyMessage(&sc, line, &m) {
			if !l.Partial {
				// An unfinished last line is Goose still writing it.
				warn.Add("not a Goose message", l.Number)
			}
			continue
		}
		if m.Role != "user" && m.Role != "assistant" {
			warn.Add("of unknown role "+harness.Quoted(m.Role), l.Number)
			continue
		}
		for _, k := range m.Unknown {
			warn.Add("with content of unknown type "+harness.Quoted(k), l.Number)
		}
		msgs = append(msgs, m)
		lines = append(lines, l.Number)
	}
	return buildSession(info, msgs, lines), warn.List()
}

// isMetadata reports a first line that is session metadata: Goose takes
// the first line for a message only when it is not metadata, and a
// message has a role.
func isMetadata(line []byte) bool {
	held := harness.TopKeys(line, "role", "working_dir", "description")
	return !held[0] && (held[1] || held[2])
}

// decodeLegacyMetadata reads the metadata line's working_dir.
func decodeLegacyMetadata(sc *jsonscan.Scanner, line []byte, info *sessionInfo) {
	sc.Reset(line)
	sc.Object(func(key []byte) bool {
		if string(key) != "working_dir" {
			return false
		}
		info.Dir = sc.String()
		return true
	})
}

// decodeLegacyMessage reads one message line, reporting false when it is
// not a JSON object with a content array.
func decodeLegacyMessage(sc *jsonscan.Scanner, line []byte, m *message) bool {
	sc.Reset(line)
	content := false
	ok := sc.Object(func(key []byte) bool {
		switch string(key) {
		case "role":
			m.Role = sc.String()
		case "created":
			m.Created = sc.Int()
		case "content":
			content = decodeItems(sc, m)
		case "metadata":
			sc.Object(func(key []byte) bool {
				if string(key) != "userVisible" {
					return false
				}
				m.Hidden = sc.Kind() == 'f'
				sc.Skip()
				return true
			})
		default:
			return false
		}
		return true
	})
	return ok && content && sc.End()
}
