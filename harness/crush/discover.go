package crush

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/deja-dev/deja/harness"
)

// The variables that move Crush's global data directory, where its list
// of projects is kept: CRUSH_GLOBAL_DATA first, then $XDG_DATA_HOME/crush
// (config.GlobalConfigData in internal/config/load.go).
const (
	GlobalDataEnv = "CRUSH_GLOBAL_DATA"
	DataHomeEnv   = "XDG_DATA_HOME"
)

// dataDirName is the directory Crush keeps in each project, found by
// walking up from where it runs.
const dataDirName = ".crush"

// maxProjectsFile bounds the projects.json read: a list of paths, a few
// kB for a user of many projects.
const maxProjectsFile = 16 << 20

// Discover finds Crush's stores: each project's data directory that
// Crush's projects.json lists (in $CRUSH_GLOBAL_DATA, else
// $XDG_DATA_HOME/crush, else ~/.local/share/crush on Linux and macOS and
// %LOCALAPPDATA%\crush on Windows, each looked at whatever the system),
// the .crush directory of the project deja runs in (the closest above
// the working directory, as Crush finds it), and those of the projects
// deja's aider-projects list names. Crush keeps no store outside its
// projects, so a project it ran in before it kept projects.json is found
// only from there. The crush.dirs setting replaces them all: each of its
// directories is read as a data directory (holding crush.db), a project
// (holding .crush/crush.db) or a global data directory (holding
// projects.json).
func Discover(opts harness.DiscoverOptions) harness.Discovery {
	var f harness.Finder
	if len(opts.Dirs) > 0 {
		for _, dir := range opts.Dirs {
			dir = harness.ExpandHome(dir, opts.Home)
			if !filepath.IsAbs(dir) && opts.WorkDir != "" {
				dir = filepath.Join(opts.WorkDir, dir)
			}
			r := harness.Reason{Kind: "config", From: dir, Name: "crush.dirs"}
			if !f.Place(dir, r.String()) {
				continue
			}
			for _, p := range []string{filepath.Join(dir, storeName), filepath.Join(dir, dataDirName, storeName)} {
				addStore(&f, p, r)
			}
			readProjects(&f, filepath.Join(dir, "projects.json"), harness.Reason{Kind: "config", From: dir, Name: "crush.dirs projects.json"})
		}
		return f.Result()
	}
	for _, g := range globalDirs(opts) {
		if !f.Place(g.From, g.String()) {
			continue
		}
		f.Installed()
		readProjects(&f, filepath.Join(g.From, "projects.json"), harness.Reason{Kind: g.Kind, From: g.From, Name: g.String() + " projects.json"})
	}
	if opts.WorkDir != "" {
		if dir := closestDataDir(opts.WorkDir); dir != "" {
			addStore(&f, filepath.Join(dir, storeName), harness.Reason{Kind: "project", From: filepath.Dir(dir), Name: "this project"})
		}
	}
	if opts.ConfigDir != "" {
		list := filepath.Join(opts.ConfigDir, "aider-projects")
		for _, dir := range listedProjects(list) {
			addStore(&f, filepath.Join(dir, dataDirName, storeName), harness.Reason{Kind: "project", From: dir, Name: "aider-projects"})
		}
	}
	return f.Result()
}

// globalDirs are the places of Crush's global data directory, each as the
// reason that names it: the one a variable names, else every default.
func globalDirs(opts harness.DiscoverOptions) []harness.Reason {
	if g := harness.ExpandHome(opts.Env(GlobalDataEnv), opts.Home); g != "" {
		if !filepath.IsAbs(g) && opts.WorkDir != "" {
			g = filepath.Join(opts.WorkDir, g)
		}
		return []harness.Reason{{Kind: "env", From: g, Name: GlobalDataEnv}}
	}
	if x := opts.Env(DataHomeEnv); filepath.IsAbs(x) {
		// The XDG spec ignores a relative XDG_DATA_HOME.
		return []harness.Reason{{Kind: "env", From: filepath.Join(x, "crush"), Name: DataHomeEnv}}
	}
	var out []harness.Reason
	if opts.Home != "" {
		out = append(out, harness.Reason{Kind: "default", From: filepath.Join(opts.Home, ".local", "share", "crush"), Name: "~/.local/share/crush"})
	}
	if a := opts.Env("LOCALAPPDATA"); filepath.IsAbs(a) {
		out = append(out, harness.Reason{Kind: "env", From: filepath.Join(a, "crush"), Name: "LOCALAPPDATA"})
	} else if opts.Home != "" {
		out = append(out, harness.Reason{Kind: "default", From: filepath.Join(opts.Home, "AppData", "Local", "crush"), Name: `~\AppData\Local\crush`})
	}
	return out
}

// projectList is Crush's projects.json (internal/projects/projects.go):
// each project's working directory and the data directory Crush used
// there, absolute as Crush writes it.
type projectList struct {
	Projects []struct {
		Path    string `json:"path"`
		DataDir string `json:"data_dir"`
	} `json:"projects"`
}

// readProjects adds the store of each project file lists, saying why a
// list that is there cannot be read.
func readProjects(f *harness.Finder, file string, r harness.Reason) {
	fh, err := harness.OpenSide(file)
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	if err != nil {
		f.Warn("cannot read %s (%s): %v", file, r, err)
		return
	}
	defer fh.Close()
	var list projectList
	if err := json.NewDecoder(io.LimitReader(fh, maxProjectsFile)).Decode(&list); err != nil {
		f.Warn("%s is not Crush's list of projects (%v); its projects are not searched: fix or remove it", file, err)
		return
	}
	for _, p := range list.Projects {
		dir := p.DataDir
		if dir == "" && p.Path != "" {
			dir = filepath.Join(p.Path, dataDirName)
		}
		if dir == "" {
			continue
		}
		if !filepath.IsAbs(dir) && p.Path != "" {
			dir = filepath.Join(p.Path, dir)
		}
		if filepath.IsAbs(dir) {
			addStore(f, filepath.Join(dir, storeName), r)
		}
	}
}

// addStore adds path when it is a file: a listed project whose store is
// gone (deleted, or never written) is no error.
func addStore(f *harness.Finder, path string, r harness.Reason) {
	if isFile(path) {
		f.Installed()
		f.Add(path, r)
	}
}

// closestDataDir is the closest .crush directory holding a store at or
// above dir, "" when there is none.
func closestDataDir(dir string) string {
	for {
		if p := filepath.Join(dir, dataDirName); isFile(filepath.Join(p, storeName)) {
			return p
		}
		up := filepath.Dir(dir)
		if up == dir {
			return ""
		}
		dir = up
	}
}

// listedProjects reads deja's aider-projects list: one absolute directory
// a line, '#' starting a comment.
func listedProjects(file string) []string {
	fh, err := harness.OpenSide(file)
	if err != nil {
		return nil
	}
	defer fh.Close()
	var out []string
	sc := bufio.NewScanner(io.LimitReader(fh, maxProjectsFile))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line != "" && !strings.HasPrefix(line, "#") && filepath.IsAbs(line) {
			out = append(out, line)
		}
	}
	return out
}

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}
