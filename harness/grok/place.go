package grok

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/deja-dev/deja/harness"
	json "github.com/deja-dev/deja/internal/jsonlimit"
)

// The files of a session folder deja reads.
const (
	updatesFile = "updates.jsonl"
	summaryFile = "summary.json"
	// cwdFile names the work directory of a cwd folder whose name is a
	// slug and a hash (xai-grok-config paths.rs, ensure_sessions_cwd_dir).
	cwdFile = ".cwd"
)

// maxSummary bounds a summary.json read: it holds a few fields and short
// previews (last_recap is bounded by Grok).
const maxSummary = 4 << 20

// maxCwd bounds a work directory: a longer one is no directory.
const maxCwd = 4096

// summary is the part of summary.json deja reads (session/persistence.rs,
// Summary): the session's work directory, when it began, what made it and
// the session it came from.
type summary struct {
	Info struct {
		Cwd string `json:"cwd"`
	} `json:"info"`
	CreatedAt string `json:"created_at"`
	// Kind is "fork", "subagent", "subagent_fork", "subagent_resume",
	// "worktree"… or absent for a session the user started.
	Kind   string `json:"session_kind"`
	Parent string `json:"parent_session_id"`
}

// place reads what the folders around an updates.jsonl say: the session
// id (its folder's name), the project (summary.json's info.cwd, else the
// cwd folder's name decoded, else its .cwd file), and from summary.json
// the start and the lineage. A file elsewhere (deja parse on a copy) says
// nothing; its lines name the session.
func (p *parser) place(path string) {
	if path == "" || filepath.Base(path) != updatesFile {
		return
	}
	dir := filepath.Dir(path)
	group := filepath.Dir(dir)
	if id := filepath.Base(dir); harness.IsUUID(id) {
		p.own = id
	}
	var s summary
	parent := ""
	if data, err := harness.ReadSide(filepath.Join(dir, summaryFile), maxSummary); err == nil && json.Unmarshal(data, &s) == nil {
		p.sess.Project = cleanCwd(s.Info.Cwd)
		if t, err := time.Parse(time.RFC3339Nano, s.CreatedAt); err == nil {
			p.sess.Started = t.UTC()
		}
		if harness.IsUUID(s.Parent) {
			parent = s.Parent
		}
		p.sess.Subagent = strings.HasPrefix(s.Kind, "subagent")
	}
	if p.sess.Project == "" {
		p.sess.Project = cwdOf(group)
	}
	if p.sess.Subagent && parent == "" && p.own != "" {
		parent = spawner(group, p.own)
	}
	if parent != "" {
		p.sess.Parent = IDPrefix + parent
	}
}

// cwdOf is the work directory a cwd folder stands for: its name
// URL-decoded when that is an absolute path (a Unix path, or a Windows one
// with its drive), else the path its .cwd file holds (decode_cwd_from_dirname).
func cwdOf(group string) string {
	if dec, err := url.PathUnescape(filepath.Base(group)); err == nil && isAbs(dec) {
		return cleanCwd(dec)
	}
	if data, err := harness.ReadSide(filepath.Join(group, cwdFile), maxCwd); err == nil {
		return cleanCwd(strings.TrimSpace(string(data)))
	}
	return ""
}

func isAbs(p string) bool {
	if strings.HasPrefix(p, "/") {
		return true
	}
	drive := len(p) >= 3 && p[1] == ':' && (p[2] == '\\' || p[2] == '/')
	return drive && ('a' <= p[0] && p[0] <= 'z' || 'A' <= p[0] && p[0] <= 'Z')
}

// cleanCwd is a work directory as a session's project: cleaned, or ""
// for one that is empty, too long or holds a line break.
func cleanCwd(p string) string {
	if strings.TrimSpace(p) == "" || len(p) > maxCwd || strings.ContainsAny(p, "\r\n\x00") {
		return ""
	}
	return filepath.Clean(p)
}

// spawner finds the session that ran the subagent id: Grok writes the
// subagent's record as <parent>/subagents/<id>/meta.json and names no
// parent in the subagent's own summary (agent/subagent/mod.rs). The parent
// usually works in the same folder, so only the sessions beside it are
// looked at; one in another worktree is not found.
func spawner(group, id string) string {
	entries, _ := os.ReadDir(group)
	for _, e := range entries {
		n := e.Name()
		if n == id || !e.IsDir() || !harness.IsUUID(n) {
			continue
		}
		if info, err := os.Stat(filepath.Join(group, n, "subagents", id)); err == nil && info.IsDir() {
			return n
		}
	}
	return ""
}
