package gemini

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/deja-dev/deja/harness"
)

// ProjectResolver returns the function Parse asks for the directory a
// recording at path ran in. The chat header holds only projectHash, the
// SHA-256 of that directory (FORMATS.md §3.1, §3.5), so the directory is
// recovered from the files beside the recording, in this order:
//
//  1. <project-id>/.project_root, which the CLI writes into each project's
//     temporary directory since it named them by short slugs;
//  2. ~/.gemini/projects.json, which maps directories to those slugs: the
//     directory whose slug names the recording's project directory;
//  3. any directory of projects.json, or the home directory, whose SHA-256
//     is the header's projectHash or the old hash-named directory's name.
//
// It reads those files once per call of the returned function and returns
// "" when none answers.
func ProjectResolver(path string) func(projectHash string) string {
	return func(projectHash string) string {
		projectDir, geminiDir := layout(path)
		if projectDir == "" {
			return ""
		}
		if root, err := harness.ReadSide(filepath.Join(projectDir, ".project_root"), 64<<10); err == nil {
			if p := strings.TrimSpace(string(root)); filepath.IsAbs(p) {
				return filepath.Clean(p)
			}
		}
		slug := filepath.Base(projectDir)
		projects := readProjects(filepath.Join(geminiDir, "projects.json"))
		for dir, s := range projects {
			if s == slug && filepath.IsAbs(dir) {
				return filepath.Clean(dir)
			}
		}
		candidates := make([]string, 0, len(projects)+1)
		for dir := range projects {
			candidates = append(candidates, dir)
		}
		if filepath.Base(geminiDir) == ".gemini" {
			candidates = append(candidates, filepath.Dir(geminiDir))
		}
		for _, dir := range candidates {
			h := hashOf(dir)
			if h == projectHash || h == slug {
				return filepath.Clean(dir)
			}
		}
		return ""
	}
}

// layout returns the project's temporary directory (…/tmp/<project-id>)
// and the CLI's own directory (…/.gemini) for a recording under
// <project-id>/chats/, or under chats/<parentSessionId>/ for a subagent.
func layout(path string) (projectDir, geminiDir string) {
	dir := filepath.Dir(path)
	for range 2 {
		if filepath.Base(dir) == "chats" {
			projectDir = filepath.Dir(dir)
			return projectDir, filepath.Dir(filepath.Dir(projectDir))
		}
		dir = filepath.Dir(dir)
	}
	return "", ""
}

// readProjects reads projects.json: {"projects":{"<dir>":"<slug>"}}.
func readProjects(file string) map[string]string {
	data, err := harness.ReadSide(file, 64<<20)
	if err != nil {
		return nil
	}
	var v struct {
		Projects map[string]string `json:"projects"`
	}
	if json.Unmarshal(data, &v) != nil {
		return nil
	}
	return v.Projects
}

// hashOf is the CLI's project hash: the hex SHA-256 of the directory.
func hashOf(dir string) string {
	sum := sha256.Sum256([]byte(dir))
	return hex.EncodeToString(sum[:])
}
