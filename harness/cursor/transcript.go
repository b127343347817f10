package cursor

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/internal/jsonscan"
)

// transcriptsDir is the directory, under ~/.cursor/projects/<slug>, that
// holds agent transcripts: <id>/<id>.jsonl, with subagents in
// <id>/subagents/<uuid>.jsonl.
const transcriptsDir = "agent-transcripts"

// ReadTranscript reads one agent transcript: one session, named by the
// file's name, a subagent's linked to the session whose directory holds
// it. Its marker is the file's size and modification time, so an
// unchanged file is not read.
//
// Records are {"role":"user"|"assistant","message":{"content":[…]}} with
// text and tool_use blocks, and {"type":"turn_ended"} between turns; no
// record carries a time or a tool result. A user's text wraps the typed
// prompt in <user_query> after a <timestamp> of the local time it was
// sent, which is the message's time; an assistant's message is given the
// time of the prompt it answers, and a warning says so.
func ReadTranscript(path string, opts harness.ParseOptions) (*harness.History, error) {
	h := &harness.History{Path: path}
	id, parent, ok := transcriptIDs(path)
	if !ok {
		return h, nil
	}
	f, err := harness.OpenSide(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	marker := fmt.Sprintf("%d.%d", fi.Size(), fi.ModTime().UnixNano())
	if opts.Unchanged != nil && opts.Unchanged(id, marker) {
		h.Sessions = []harness.Session{{ID: id, Ordinal: 1, Marker: marker}}
		return h, nil
	}
	data, err := io.ReadAll(io.LimitReader(f, harness.MaxDecoded+1))
	if err != nil {
		return nil, err
	}
	if len(data) > harness.MaxDecoded {
		return nil, fmt.Errorf("cursor: %s is over %d MB, the most deja reads of one transcript", path, harness.MaxDecoded>>20)
	}
	s, warnings := parseTranscript(data, id, opts.Location)
	s.ID, s.Parent, s.Subagent, s.Marker, s.Ordinal = id, parent, parent != "", marker, 1
	if s.Project == "" {
		s.Project = slugProject(path)
	}
	if s.Project != "" {
		for i := range s.Records {
			if s.Records[i].Kind == harness.FileRecord {
				s.Records[i].Value = harness.RelPath(s.Project, s.Records[i].Value)
			}
		}
	}
	h.Warnings = warnings
	if len(s.Messages) > 0 {
		h.Sessions = []harness.Session{s}
	}
	return h, nil
}

// transcriptIDs names a transcript's session and its parent's ("" for a
// root session) from its path: <id>.jsonl, <id>/<id>.jsonl, or
// <parent>/subagents/<id>.jsonl. ok is false for a file name that is not
// a UUID.
func transcriptIDs(path string) (id, parent string, ok bool) {
	name := strings.TrimSuffix(filepath.Base(path), ".jsonl")
	if !harness.IsUUID(name) {
		return "", "", false
	}
	dir := filepath.Dir(path)
	if filepath.Base(dir) == "subagents" {
		if p := filepath.Base(filepath.Dir(dir)); harness.IsUUID(p) {
			parent = transcriptPrefix + p
		}
	}
	return transcriptPrefix + name, parent, true
}

// parseTranscript parses one transcript's bytes into its session (without
// its ID), with the warnings of what was skipped and of the messages of
// session id given another's time.
func parseTranscript(data []byte, id string, loc *time.Location) (harness.Session, []string) {
	var s harness.Session
	var tm timer
	skip := skipped{}
	turn := -1
	seen := map[harness.Record]bool{}
	var sc jsonscan.Scanner
	lines := harness.NewLines(data)
	for lines.Next() {
		raw := lines.Line
		if len(bytes.TrimSpace(raw)) == 0 {
			continue
		}
		if len(raw) > harness.MaxLine {
			skip.add(fmt.Sprintf("lines over %d MB", harness.MaxLine>>20))
			continue
		}
		r, ok := decodeRecord(&sc, raw)
		if !ok {
			if lines.Partial {
				// Still being written: read whole next time.
				break
			}
			skip.add("lines that are not JSON objects")
			continue
		}
		s.End = int64(lines.End())
		switch {
		case r.Type == "turn_ended":
			continue
		case r.Role == "user":
			query, when := userText(r.Text, loc)
			if query == "" {
				continue
			}
			turn++
			s.Messages = append(s.Messages, harness.Message{Role: harness.User, Text: query, Turn: turn, Line: lines.Number, Time: tm.at(when, lines.Number)})
		case r.Role == "assistant":
			if text := trimmed(r.Text); text != "" {
				s.Messages = append(s.Messages, harness.Message{Role: harness.Assistant, Text: text, Turn: turn, Line: lines.Number, Time: tm.at(time.Time{}, lines.Number)})
			}
			for _, t := range r.Tools {
				if s.Project == "" && t.Dir != "" && filepath.IsAbs(t.Dir) {
					s.Project = filepath.Clean(t.Dir)
				}
				for _, rec := range toolRecords(t.Name, "", t.Args, "") {
					rec.Turn, rec.Line = turn, lines.Number
					key := rec
					key.Line = 0
					if !seen[key] {
						seen[key] = true
						s.Records = append(s.Records, rec)
					}
				}
			}
		default:
			skip.add("records of unknown role")
		}
	}
	if len(s.Messages) > 0 {
		s.Started = s.Messages[0].Time
	}
	warnings := skip.list()
	if w := tm.warning(id, "the time of the prompt before it"); w != "" {
		warnings = append([]string{w}, warnings...)
	}
	return s, warnings
}

// record is one transcript line: what deja keeps of it.
type record struct {
	Type  string
	Role  string
	Text  string
	Tools []toolUse
}

// toolUse is one tool_use block.
type toolUse struct {
	Name string
	Args toolArgs
	// Dir is a Shell call's working_directory.
	Dir string
}

// decodeRecord decodes one line, reporting false for one that is not a
// whole JSON object.
func decodeRecord(sc *jsonscan.Scanner, raw []byte) (record, bool) {
	var r record
	sc.Reset(raw)
	ok := sc.Object(func(key []byte) bool {
		switch string(key) {
		case "type":
			r.Type = sc.String()
		case "role":
			r.Role = sc.String()
		case "message":
			sc.Object(func(key []byte) bool {
				if string(key) != "content" {
					return false
				}
				r.content(sc)
				return true
			})
		default:
			return false
		}
		return true
	})
	return r, ok && sc.End()
}

// content reads a message's content: a string, or blocks whose text
// blocks are joined and whose tool_use blocks are kept.
func (r *record) content(sc *jsonscan.Scanner) {
	if sc.Kind() == '"' {
		r.Text = sc.String()
		return
	}
	var texts []string
	sc.Array(func() {
		var typ, text string
		var t toolUse
		sc.Object(func(key []byte) bool {
			switch string(key) {
			case "type":
				typ = sc.String()
			case "text":
				text = sc.String()
			case "name":
				t.Name = sc.String()
			case "input":
				sc.Object(func(key []byte) bool {
					if string(key) == "working_directory" {
						t.Dir = sc.String()
						return true
					}
					return t.Args.field(sc, key)
				})
			default:
				return false
			}
			return true
		})
		switch typ {
		case "text":
			if text != "" {
				texts = append(texts, text)
			}
		case "tool_use":
			if t.Name != "" {
				r.Tools = append(r.Tools, t)
			}
		}
	})
	r.Text = strings.Join(texts, "\n\n")
}

// userText is a user line's typed prompt and the time its <timestamp>
// names: the text inside <user_query>, or the whole text less the
// <timestamp> element when there is no query element.
func userText(text string, loc *time.Location) (string, time.Time) {
	var when time.Time
	if stamp, ok := element(text, "timestamp"); ok {
		when = parseStamp(stamp, loc)
	}
	if q, ok := element(text, "user_query"); ok {
		return trimmed(q), when
	}
	if i := strings.Index(text, "<timestamp>"); i >= 0 {
		if j := strings.Index(text[i:], "</timestamp>"); j >= 0 {
			text = text[:i] + text[i+j+len("</timestamp>"):]
		}
	}
	return trimmed(text), when
}

// element returns the text between <tag> and </tag>.
func element(text, tag string) (string, bool) {
	_, rest, ok := strings.Cut(text, "<"+tag+">")
	if !ok {
		return "", false
	}
	inner, _, ok := strings.Cut(rest, "</"+tag+">")
	return inner, ok
}

// parseStamp reads a transcript's local time, "Wednesday, Jun 17, 2026,
// 8:14 PM (UTC+8)": the weekday is dropped, and the zone is the UTC
// offset in parentheses (loc, or time.Local, when there is none). Zero
// when it is not of that shape.
func parseStamp(s string, loc *time.Location) time.Time {
	s = trimmed(s)
	if _, rest, ok := strings.Cut(s, ", "); ok && !startsDigit(s) {
		s = rest
	}
	if loc == nil {
		loc = time.Local
	}
	if i := strings.LastIndex(s, " (UTC"); i >= 0 && strings.HasSuffix(s, ")") {
		if off, ok := utcOffset(s[i+5 : len(s)-1]); ok {
			loc = time.FixedZone("UTC"+s[i+5:len(s)-1], off)
		}
		s = s[:i]
	}
	for _, layout := range []string{"Jan 2, 2006, 3:04 PM", "January 2, 2006, 3:04 PM", "Jan 2, 2006, 15:04"} {
		if t, err := time.ParseInLocation(layout, s, loc); err == nil {
			return t.UTC()
		}
	}
	return time.Time{}
}

func startsDigit(s string) bool { return s != "" && '0' <= s[0] && s[0] <= '9' }

// utcOffset reads "+8", "-5:30", "+05:45" or "" (UTC itself) as seconds
// east of UTC.
func utcOffset(s string) (int, bool) {
	if s == "" {
		return 0, true
	}
	sign := 1
	switch s[0] {
	case '+':
	case '-':
		sign = -1
	default:
		return 0, false
	}
	hh, mm, _ := strings.Cut(s[1:], ":")
	h, err := strconv.Atoi(hh)
	if err != nil || h > 14 {
		return 0, false
	}
	m := 0
	if mm != "" {
		if m, err = strconv.Atoi(mm); err != nil || m > 59 {
			return 0, false
		}
	}
	return sign * (h*3600 + m*60), true
}

// maxSlugTries bounds the directories looked up to turn a project slug
// back into its path.
const maxSlugTries = 512

// slugProject is the project of the transcript at path, read from the
// name of the projects/<slug> directory above agent-transcripts: the cwd
// with its separators written as '-' ("Users-me-src-app"; on Windows
// "C-Users-me-app"). The slug is ambiguous (a '-' in a directory's name
// reads the same), so it is resolved against the directories that exist
// here; "" when none fits, or for a window with no folder, whose slug is
// a bare number.
func slugProject(path string) string {
	dir := filepath.Dir(path)
	for filepath.Base(dir) != transcriptsDir {
		up := filepath.Dir(dir)
		if up == dir {
			return ""
		}
		dir = up
	}
	slug := filepath.Base(filepath.Dir(dir))
	if slug == "" || strings.Trim(slug, "0123456789") == "" {
		return ""
	}
	parts := strings.Split(slug, "-")
	root := string(filepath.Separator)
	if len(parts) > 1 && len(parts[0]) == 1 && isLetter(parts[0][0]) && filepath.Separator == '\\' {
		root, parts = parts[0]+`:\`, parts[1:]
	}
	tries := 0
	p, _ := resolveSlug(root, parts, &tries)
	return p
}

// resolveSlug finds a directory under dir whose path, separators written
// as '-', is parts joined by '-'.
func resolveSlug(dir string, parts []string, tries *int) (string, bool) {
	if len(parts) == 0 {
		return dir, true
	}
	for j := 1; j <= len(parts); j++ {
		if *tries >= maxSlugTries {
			return "", false
		}
		*tries++
		name := strings.Join(parts[:j], "-")
		if name == "" {
			continue
		}
		next := filepath.Join(dir, name)
		if fi, err := os.Stat(next); err == nil && fi.IsDir() {
			if p, ok := resolveSlug(next, parts[j:], tries); ok {
				return p, true
			}
		} else if err != nil && !errors.Is(err, os.ErrNotExist) {
			continue
		}
	}
	return "", false
}
