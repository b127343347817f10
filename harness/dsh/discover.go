package dsh

import (
	"os"
	"path/filepath"

	"github.com/deja-dev/deja/harness"
)

// HomeEnv is the variable that moves dsh's home, its sessions among it,
// out of ~/.dsh.
const HomeEnv = "DSH_HOME"

// Discover finds the session logs under each sessions root: the dsh.dirs
// configuration when set (each a dsh home holding sessions/, or a
// sessions root), else $DSH_HOME/sessions and ~/.dsh/sessions, the same
// on Linux, macOS and Windows (dsh joins the home directory and .dsh on
// every system). Logs written before DSH_HOME was set stay in ~/.dsh, so
// both are searched. In each project folder (--<cwd>-- or _no-cwd) every
// session folder holds its log generations; the highest is the session
// (see latest). No other file is read: the lock file and the homes'
// settings and credentials are not history.
func Discover(opts harness.DiscoverOptions) harness.Discovery {
	var f harness.Finder
	type place struct {
		dir    string
		reason harness.Reason
		home   string
	}
	var places []place
	if len(opts.Dirs) > 0 {
		for _, d := range opts.Dirs {
			d = harness.ExpandHome(d, opts.Home)
			dir := d
			if info, err := os.Stat(filepath.Join(d, "sessions")); err == nil && info.IsDir() {
				dir = filepath.Join(d, "sessions")
			}
			places = append(places, place{dir, harness.Reason{Kind: "config", From: dir, Name: "dsh.dirs"}, ""})
		}
	} else {
		if env := opts.Env(HomeEnv); env != "" {
			home := harness.ExpandHome(env, opts.Home)
			if !filepath.IsAbs(home) && opts.WorkDir != "" {
				home = filepath.Join(opts.WorkDir, home)
			}
			dir := filepath.Join(home, "sessions")
			places = append(places, place{dir, harness.Reason{Kind: "env", From: dir, Name: HomeEnv}, home})
		}
		if opts.Home != "" {
			home := filepath.Join(opts.Home, ".dsh")
			dir := filepath.Join(home, "sessions")
			places = append(places, place{dir, harness.Reason{Kind: "default", From: dir, Name: "~/.dsh/sessions"}, home})
		}
	}
	for _, pl := range places {
		if pl.home != "" {
			if info, err := os.Stat(pl.home); err == nil && info.IsDir() {
				f.Installed()
			}
		}
		if !f.Place(pl.dir, pl.reason.Name) {
			continue
		}
		f.Installed()
		projects, err := os.ReadDir(pl.dir)
		if err != nil {
			f.Warn("cannot read %s: %v", pl.dir, err)
		}
		for _, p := range projects {
			if !p.IsDir() {
				continue
			}
			sessions, _ := os.ReadDir(filepath.Join(pl.dir, p.Name()))
			for _, s := range sessions {
				if !s.IsDir() {
					continue
				}
				dir := filepath.Join(pl.dir, p.Name(), s.Name())
				if name := latest(dir); name != "" {
					f.Add(filepath.Join(dir, name), pl.reason)
				}
			}
		}
	}
	return f.Result()
}

// latest names a session folder's highest log generation, "" when it
// holds none. dsh migrates a log by writing the next generation beside
// the old one, which it keeps byte-identical and never reads again; a
// folder's logs are all compressed or all plain, and where both are
// found the compressed one, dsh's default, is taken.
func latest(dir string) string {
	entries, _ := os.ReadDir(dir)
	best, bestV, bestZ := "", -1, false
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		v, z, ok := generationOf(e.Name())
		if ok && (v > bestV || v == bestV && z && !bestZ) {
			best, bestV, bestZ = e.Name(), v, z
		}
	}
	return best
}
