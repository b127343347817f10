package antigravity

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/deja-dev/deja/harness"
)

// The readable side files of a conversation's brain folder.
const (
	generated  = ".system_generated"
	messageDir = "messages"
	transcript = "logs/transcript.jsonl"
)

// Bounds on one conversation: a notice is a sentence or two, a transcript
// a long conversation; more notices than maxNotices are left out with a
// warning.
const (
	maxNotice     = 1 << 20
	maxNotices    = 10000
	maxTranscript = harness.MaxLine
)

// ReadConversation reads the conversation whose brain folder is dir: one
// session, antigravity-<folder name>, with the transcript's prompts and
// answers and the notices the editor sent it, in time order. Its marker
// is the count, total size and latest change of those files; when
// opts.Unchanged reports it known, the files are not read.
func ReadConversation(ctx context.Context, dir string, opts harness.ParseOptions) (*harness.History, error) {
	h := &harness.History{Path: dir}
	id := filepath.Base(dir)
	if !harness.IsUUID(id) {
		return nil, fmt.Errorf("%s: not an Antigravity brain folder (its name is not a conversation id)", dir)
	}
	if fi, err := os.Stat(filepath.Join(dir, generated)); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("%s: not an Antigravity brain folder (no %s in it)", dir, generated)
	}
	files, skipped := sideFiles(dir)
	if skipped > 0 {
		h.Warnings = append(h.Warnings, fmt.Sprintf("%d notices past the first %d, skipped", skipped, maxNotices))
	}
	sess := harness.Session{ID: IDPrefix + id, Ordinal: 1, Marker: marker(files)}
	if opts.Unchanged != nil && opts.Unchanged(sess.ID, sess.Marker) {
		h.Sessions = append(h.Sessions, sess)
		return h, nil
	}
	var w harness.Warnings
	var said, notices []harness.Message
	unread := 0
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if f.transcript {
			data, err := harness.ReadSide(f.path, maxTranscript)
			if err != nil {
				h.Warnings = append(h.Warnings, fmt.Sprintf("transcript: %v, skipped", err))
				continue
			}
			said, sess.Project = parseTranscript(data, &w)
			continue
		}
		data, err := harness.ReadSide(f.path, maxNotice)
		m, ok := parseNotice(data)
		if err != nil || !ok {
			unread++
			continue
		}
		notices = append(notices, m)
	}
	h.Warnings = append(h.Warnings, w.List()...)
	if unread > 0 {
		h.Warnings = append(h.Warnings, fmt.Sprintf("%d files of %s/%s unreadable or not a notice, skipped", unread, generated, messageDir))
	}
	sess.Messages = merge(said, notices)
	for _, m := range sess.Messages {
		if !m.Time.IsZero() && (sess.Started.IsZero() || m.Time.Before(sess.Started)) {
			sess.Started = m.Time
		}
	}
	h.Sessions = append(h.Sessions, sess)
	return h, nil
}

// sideFile is one readable file of a brain folder.
type sideFile struct {
	path       string
	transcript bool
	size       int64
	mod        time.Time
}

// sideFiles lists the folder's transcript and notices (regular files
// only, notices by name), and how many notices were left out.
func sideFiles(dir string) ([]sideFile, int) {
	var out []sideFile
	add := func(p string, tr bool) {
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			out = append(out, sideFile{path: p, transcript: tr, size: fi.Size(), mod: fi.ModTime()})
		}
	}
	add(filepath.Join(dir, generated, filepath.FromSlash(transcript)), true)
	entries, _ := os.ReadDir(filepath.Join(dir, generated, messageDir))
	n, skipped := 0, 0
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".json") || e.IsDir() {
			continue
		}
		if n == maxNotices {
			skipped++
			continue
		}
		n++
		add(filepath.Join(dir, generated, messageDir, e.Name()), false)
	}
	return out, skipped
}

// marker is what changes when any readable file of the conversation does.
func marker(files []sideFile) string {
	var size int64
	var latest time.Time
	for _, f := range files {
		size += f.size
		if f.mod.After(latest) {
			latest = f.mod
		}
	}
	return fmt.Sprintf("%d:%d:%d", len(files), size, latest.UnixNano())
}

// notice is a file of .system_generated/messages: a message the editor
// addressed to the conversation (recipient), from sender "system" in
// every file seen ([AG1]).
type notice struct {
	ID        string `json:"id"`
	Recipient string `json:"recipient"`
	Sender    string `json:"sender"`
	Timestamp string `json:"timestamp"`
	Content   string `json:"content"`
}

// parseNotice reads one notice as an assistant-side message: the user
// did not type it, and it is what the agent was told (a server restart
// stopped its subagents), so it is never a prompt.
func parseNotice(data []byte) (harness.Message, bool) {
	var n notice
	if json.Unmarshal(data, &n) != nil || strings.TrimSpace(n.Content) == "" {
		return harness.Message{}, false
	}
	t, _ := time.Parse(time.RFC3339Nano, n.Timestamp)
	return harness.Message{Role: harness.Assistant, Text: n.Content, Time: t}, true
}

// step is one line of logs/transcript.jsonl.
type step struct {
	Source    string `json:"source"`
	Type      string `json:"type"`
	CreatedAt string `json:"created_at"`
	Content   string `json:"content"`
}

// parseTranscript reads the transcript's prompts (source USER_EXPLICIT)
// and answers (source MODEL, of type PLANNER_RESPONSE or none); tool steps
// and system events are left out. It returns them with the project the
// first prompt's metadata names.
func parseTranscript(data []byte, w *harness.Warnings) ([]harness.Message, string) {
	var out []harness.Message
	project := ""
	lines := harness.NewLines(data)
	for lines.Next() {
		n, line := lines.Number, lines.Line
		if len(strings.TrimSpace(string(line))) == 0 {
			continue
		}
		var s step
		if json.Unmarshal(line, &s) != nil {
			if !lines.Partial {
				// A last line still being written is read next time.
				w.Add("not valid JSON", n)
			}
			continue
		}
		t, _ := time.Parse(time.RFC3339Nano, s.CreatedAt)
		m := harness.Message{Line: n, Time: t}
		switch {
		case s.Source == "USER_EXPLICIT":
			text, cwd := request(s.Content)
			if project == "" && filepath.IsAbs(cwd) {
				project = cwd
			}
			m.Role, m.Text = harness.User, text
		case s.Source == "MODEL" && (s.Type == "" || s.Type == "PLANNER_RESPONSE"):
			m.Role, m.Text = harness.Assistant, s.Content
		default:
			continue
		}
		if strings.TrimSpace(m.Text) != "" {
			out = append(out, m)
		}
	}
	return out, project
}

// request is a prompt as the user typed it: the <USER_REQUEST> wrapper
// and the editor's <ADDITIONAL_METADATA> and <USER_SETTINGS_CHANGE>
// blocks removed; and the cwd the metadata names.
func request(s string) (string, string) {
	cwd := ""
	for _, tag := range []string{"ADDITIONAL_METADATA", "USER_SETTINGS_CHANGE"} {
		for {
			i := strings.Index(s, "<"+tag+">")
			j := strings.Index(s, "</"+tag+">")
			if i < 0 || j < i {
				break
			}
			body := s[i+len(tag)+2 : j]
			if tag == "ADDITIONAL_METADATA" && cwd == "" {
				var meta struct {
					Cwd string `json:"cwd"`
				}
				if json.Unmarshal([]byte(body), &meta) == nil {
					cwd = meta.Cwd
				}
			}
			s = s[:i] + s[j+len(tag)+3:]
		}
	}
	s = strings.ReplaceAll(strings.ReplaceAll(s, "<USER_REQUEST>", ""), "</USER_REQUEST>", "")
	return strings.TrimSpace(s), cwd
}

// merge puts the notices, in time order, among the transcript's messages
// by time, and numbers the turns: each prompt starts one.
func merge(said, notices []harness.Message) []harness.Message {
	sort.SliceStable(notices, func(i, j int) bool { return notices[i].Time.Before(notices[j].Time) })
	out := make([]harness.Message, 0, len(said)+len(notices))
	i := 0
	for _, m := range said {
		for i < len(notices) && !m.Time.IsZero() && notices[i].Time.Before(m.Time) {
			out = append(out, notices[i])
			i++
		}
		out = append(out, m)
	}
	out = append(out, notices[i:]...)
	turn := -1
	for k := range out {
		if out[k].Role == harness.User {
			turn++
		}
		out[k].Turn = turn
	}
	return out
}
