package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// A corpusSession is one session of the corpora as the replay sees it:
// the history file that holds it, the half it fell in, its project as the
// store names it, and what its user asked and what it touched, by turn.
type corpusSession struct {
	ID string
	// Key names the session the same on every run (an aider session's
	// ID holds a hash of its history's path, which is new each run).
	Key      string
	Harness  string
	History  string
	Half     int
	Project  string
	Subagent bool
	Prompts  []prompt
	Records  []record
}

type prompt struct {
	Text string
	Turn int
}

type record struct {
	Kind, Value, Action string
	Turn                int
}

// parsed is what 'deja parse --json' prints.
type parsed struct {
	Files []struct {
		Path     string `json:"path"`
		Harness  string `json:"harness"`
		Sessions []struct {
			ID       string `json:"id"`
			Project  string `json:"project"`
			Subagent bool   `json:"subagent"`
			Messages []struct {
				Role string `json:"role"`
				Text string `json:"text"`
				Turn int    `json:"turn"`
			} `json:"messages"`
			Records []record `json:"records"`
		} `json:"sessions"`
	} `json:"files"`
}

// half is the half a name falls in, the same on every run.
func half(name string) int { return int(hash(name) & 1) }

// hash is the FNV-1a hash of s: a fixed order and split that follow
// neither time nor name.
func hash(s string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(s))
	return h.Sum32()
}

// layout copies the corpora under scratch so that both halves of a
// project sit in one directory (the store names a session that records
// no working directory by its history's directory) and returns the
// history files with the half each fell in.
//
// A harness corpus file is one session (or a few of one project), so its
// files are split by name, each copied to scratch/AGENT/OWNER__REPO/.
// An aider history is one project's every session, so split by file it
// would leave no project with a past: its sessions are split instead,
// each half written as its own history in scratch/aider/NAME/.
func layout(harnessDir, aiderDir, scratch string) (map[string]int, error) {
	halves := map[string]int{}
	err := filepath.WalkDir(harnessDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !d.Type().IsRegular() {
			return err
		}
		rel, _ := filepath.Rel(harnessDir, path)
		agent, name, ok := strings.Cut(rel, string(filepath.Separator))
		if !ok || strings.HasSuffix(name, ".md") || strings.HasSuffix(name, ".tsv") {
			return nil
		}
		name = filepath.Base(name)
		repo := "unknown"
		if f := strings.SplitN(name, "__", 3); len(f) == 3 {
			repo = f[0] + "__" + f[1]
		}
		dst := filepath.Join(scratch, agent, repo, name)
		if err := copyFile(path, dst); err != nil {
			return err
		}
		halves[dst] = half(name)
		return nil
	})
	if err != nil && !os.IsNotExist(err) {
		return nil, err
	}
	histories, _ := filepath.Glob(filepath.Join(aiderDir, "*.md"))
	for _, path := range histories {
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		name := strings.TrimSuffix(filepath.Base(path), ".md")
		var parts [2]bytes.Buffer
		for i, s := range aiderSessions(data) {
			header, _, _ := bytes.Cut(s, []byte("\n"))
			parts[half(fmt.Sprintf("%s\x00%d\x00%s", name, i, header))].Write(s)
		}
		for h := range parts {
			if parts[h].Len() == 0 {
				continue
			}
			dst := filepath.Join(scratch, "aider", name, fmt.Sprintf("half%d.aider.chat.history.md", h))
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				return nil, err
			}
			if err := os.WriteFile(dst, parts[h].Bytes(), 0o644); err != nil {
				return nil, err
			}
			halves[dst] = h
		}
	}
	return halves, nil
}

// aiderSessions cuts an aider history at its session headers; what comes
// before the first header belongs to no session and is dropped.
func aiderSessions(data []byte) [][]byte {
	var out [][]byte
	start := -1
	for at := 0; at < len(data); {
		end := len(data)
		if i := bytes.IndexByte(data[at:], '\n'); i >= 0 {
			end = at + i + 1
		}
		if bytes.HasPrefix(data[at:end], []byte("# aider chat started at ")) {
			if start >= 0 {
				out = append(out, data[start:at])
			}
			start = at
		}
		at = end
	}
	if start >= 0 {
		out = append(out, data[start:])
	}
	return out
}

func copyFile(src, dst string) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	return os.WriteFile(dst, data, 0o644)
}

// readSessions parses the histories with 'deja parse --json' and returns
// their sessions; histories no harness claims, or that hold no session,
// are left out (and so not indexed either).
func readSessions(bin string, env []string, halves map[string]int) ([]corpusSession, error) {
	var paths []string
	for p := range halves {
		paths = append(paths, p)
	}
	cmd := exec.Command(bin, append([]string{"parse", "--json"}, paths...)...)
	cmd.Env = env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("deja parse: %v\n%s", err, stderr.String())
	}
	var p parsed
	if err := json.Unmarshal(out, &p); err != nil {
		return nil, fmt.Errorf("deja parse --json: %w", err)
	}
	var sessions []corpusSession
	for _, f := range p.Files {
		for i, s := range f.Sessions {
			key := fmt.Sprintf("%s/%s#%d", filepath.Base(filepath.Dir(f.Path)), filepath.Base(f.Path), i)
			cs := corpusSession{ID: s.ID, Key: key, Harness: f.Harness, History: f.Path, Half: halves[f.Path],
				Project: s.Project, Subagent: s.Subagent, Records: s.Records}
			if cs.Project == "" {
				cs.Project = filepath.Dir(f.Path)
			}
			for _, m := range s.Messages {
				if m.Role == "user" && strings.TrimSpace(m.Text) != "" {
					cs.Prompts = append(cs.Prompts, prompt{m.Text, m.Turn})
				}
			}
			sessions = append(sessions, cs)
		}
	}
	return sessions, nil
}
