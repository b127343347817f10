package kimi

import (
	"crypto/md5"
	"encoding/hex"
	"io"
	"path/filepath"
	"strings"

	"github.com/deja-dev/deja/harness"
	json "github.com/deja-dev/deja/internal/jsonlimit"
)

// place is what a history's path says about it: whose session it holds,
// which agent's, and where the files beside it that name its project and
// its parent lie.
type place struct {
	// session is the product's session id; agent the key of a subagent
	// whose file this is ("" for the main agent's), and dir the name of
	// its folder.
	session, agent, dir string
	// code marks a Kimi Code agent wire; else the file is kimi-cli's.
	code bool
	// sessionDir is the session's folder, bucket the work directory's
	// folder above it (kimi-cli's md5 of the path), root the data folder.
	sessionDir, bucket, root string
}

// maxSideFile bounds a read of kimi.json or state.json: both hold a few
// lines a project or agent.
const maxSideFile = 4 << 20

// placeOf reads a history's path (harness.ParseOptions.Path):
//
//	<root>/sessions/<bucket>/<id>/agents/<agent>/wire.jsonl     Kimi Code
//	<root>/sessions/<bucket>/<id>/wire.jsonl                    kimi-cli
//	<root>/sessions/<bucket>/<id>/subagents/<agent>/wire.jsonl  kimi-cli subagent
//	<root>/sessions/<bucket>/<id>/context.jsonl                 kimi-cli, before its wire log
//	<root>/sessions/<bucket>/<id>/context_sub_<n>.jsonl         kimi-cli subagent, the same
//	<root>/sessions/<bucket>/<id>.jsonl                         kimi-cli before session folders
//
// A file elsewhere (deja parse on a copy, a collection of histories) is
// named by its own name, or by its folder's when its name is the one every
// session file has.
func placeOf(path string) place {
	if path == "" {
		return place{}
	}
	dir, base := filepath.Split(path)
	dir = filepath.Clean(dir)
	up := func(p string, n int) string {
		for range n {
			p = filepath.Dir(p)
		}
		return p
	}
	var p place
	switch {
	case base == "wire.jsonl" && filepath.Base(filepath.Dir(dir)) == "agents":
		p = place{session: filepath.Base(up(dir, 2)), agent: filepath.Base(dir), dir: filepath.Base(dir), code: true, sessionDir: up(dir, 2)}
		if p.agent == "main" {
			p.agent = ""
		}
	case base == "wire.jsonl" && filepath.Base(filepath.Dir(dir)) == "subagents":
		p = place{session: filepath.Base(up(dir, 2)), agent: filepath.Base(dir), sessionDir: up(dir, 2)}
	case base == "wire.jsonl", base == "context.jsonl":
		p = place{session: filepath.Base(dir), sessionDir: dir}
	case strings.HasPrefix(base, "context_sub_") && strings.HasSuffix(base, ".jsonl"):
		p = place{session: filepath.Base(dir), agent: "sub-" + strings.TrimSuffix(strings.TrimPrefix(base, "context_sub_"), ".jsonl"), sessionDir: dir}
	case filepath.Base(filepath.Dir(dir)) == "sessions" && harness.IsUUID(strings.TrimSuffix(base, ".jsonl")):
		return place{session: strings.TrimSuffix(base, ".jsonl"), bucket: filepath.Base(dir), root: up(dir, 2)}
	default:
		return place{session: looseSession(dir, base)}
	}
	if filepath.Base(up(p.sessionDir, 2)) == "sessions" {
		p.bucket = filepath.Base(filepath.Dir(p.sessionDir))
		p.root = up(p.sessionDir, 3)
	}
	p.agent = agentKey(p.agent)
	return p
}

// looseSession names the session of a file out of its place: the file's
// name without .jsonl, unless that is wire or context, then its folder's;
// each byte an ID cannot hold becomes '_', and the last maxSession bytes
// are kept (where copies' names differ).
func looseSession(dir, base string) string {
	stem := strings.TrimSuffix(base, ".jsonl")
	if stem == "wire" || stem == "context" || stem == "" {
		stem = filepath.Base(dir)
	}
	b := []byte(stem[max(0, len(stem)-maxSession):])
	for i, c := range b {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_' || c == '-' || c == '.') {
			b[i] = '_'
		}
	}
	for len(b) > 0 && (b[0] == '.' || b[0] == '-') {
		b = b[1:]
	}
	if len(b) == 0 {
		return "unknown"
	}
	return string(b)
}

// agentKey is a subagent's folder name as it goes into a session ID:
// Kimi Code's agent-<n> without its prefix, which the ID adds back.
func agentKey(agent string) string {
	if agent == "" {
		return ""
	}
	return fileComponent(strings.TrimPrefix(agent, "agent-"))
}

// fileComponent makes a name fit an ID's part: every byte outside
// letters, digits, '_' and '-' becomes '_', and the first 64 bytes are
// kept (harness.IsToken). An empty one is "unknown".
func fileComponent(id string) string {
	if id == "" || id == "." || id == string(filepath.Separator) {
		return "unknown"
	}
	b := []byte(id[:min(len(id), 64)])
	for i, c := range b {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_' || c == '-') {
			b[i] = '_'
		}
	}
	return string(b)
}

// readSide decodes a small JSON file beside the history into v, and
// reports whether it could.
func readSide(path string, v any) bool {
	f, err := harness.OpenSide(path)
	if err != nil {
		return false
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxSideFile+1))
	if err != nil || len(data) > maxSideFile {
		return false
	}
	return json.Unmarshal(data, v) == nil
}

// workDirOf is the work directory kimi-cli's kimi.json names for a
// sessions bucket: the path whose md5 is the bucket's name, or
// <kaos>_<md5> for a work directory on another KAOS (metadata.py,
// WorkDirMeta.sessions_dir).
func workDirOf(root, bucket string) string {
	if root == "" || bucket == "" {
		return ""
	}
	var meta struct {
		WorkDirs []struct {
			Path string `json:"path"`
			Kaos string `json:"kaos"`
		} `json:"work_dirs"`
	}
	if !readSide(filepath.Join(root, "kimi.json"), &meta) {
		return ""
	}
	for _, wd := range meta.WorkDirs {
		sum := md5.Sum([]byte(wd.Path))
		name := hex.EncodeToString(sum[:])
		if wd.Kaos != "" && wd.Kaos != "local" {
			name = wd.Kaos + "_" + name
		}
		if name == bucket && len(wd.Path) <= maxCwd {
			return wd.Path
		}
	}
	return ""
}

// sessionState is the part of Kimi Code's state.json deja reads.
type sessionState struct {
	WorkDir    string `json:"workDir"`
	ForkedFrom string `json:"forkedFrom"`
	Agents     map[string]struct {
		ParentAgentID string `json:"parentAgentId"`
	} `json:"agents"`
}
