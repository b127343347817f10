package hermes

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/deja-dev/deja/harness"
)

// HomeEnv moves the Hermes home, where state.db and profiles/ are.
const HomeEnv = "HERMES_HOME"

// SuffixEnv is appended to the default home's name (~/.hermes<suffix>),
// as hermes_constants.py's _get_platform_default_hermes_home does.
const SuffixEnv = "HERMES_DATA_DIR_SUFFIX"

// Discover finds Hermes Agent's stores: state.db in each Hermes home and
// profiles/<name>/state.db below it. The home is $HERMES_HOME when set
// (with, when it is itself a profile, <root>/profiles/<name>, the root
// above it, as Hermes finds its root); else ~/.hermes (Linux, macOS) and
// %LOCALAPPDATA%\hermes (Windows; ~\AppData\Local\hermes without the
// variable), each looked at whatever the system. The hermes.dirs setting
// replaces them all, each of its directories read as a home.
func Discover(opts harness.DiscoverOptions) harness.Discovery {
	var f harness.Finder
	type place struct {
		dir    string
		reason harness.Reason
	}
	var homes []place
	suffix := opts.Env(SuffixEnv)
	switch {
	case len(opts.Dirs) > 0:
		for _, dir := range opts.Dirs {
			dir = harness.ExpandHome(dir, opts.Home)
			homes = append(homes, place{dir, harness.Reason{Kind: "config", From: dir, Name: "hermes.dirs"}})
		}
	case strings.TrimSpace(opts.Env(HomeEnv)) != "":
		dir := harness.ExpandHome(strings.TrimSpace(opts.Env(HomeEnv)), opts.Home)
		if !filepath.IsAbs(dir) && opts.WorkDir != "" {
			dir = filepath.Join(opts.WorkDir, dir)
		}
		r := harness.Reason{Kind: "env", From: dir, Name: HomeEnv}
		homes = append(homes, place{dir, r})
		if filepath.Base(filepath.Dir(dir)) == "profiles" {
			root := filepath.Dir(filepath.Dir(dir))
			homes = append(homes, place{root, r})
		}
	default:
		if opts.Home != "" {
			dir := filepath.Join(opts.Home, ".hermes"+suffix)
			homes = append(homes, place{dir, harness.Reason{Kind: "default", From: dir, Name: "~/.hermes" + suffix}})
		}
		if a := opts.Env("LOCALAPPDATA"); filepath.IsAbs(a) {
			dir := filepath.Join(a, "hermes"+suffix)
			homes = append(homes, place{dir, harness.Reason{Kind: "env", From: dir, Name: "LOCALAPPDATA"}})
		} else if opts.Home != "" {
			dir := filepath.Join(opts.Home, "AppData", "Local", "hermes"+suffix)
			homes = append(homes, place{dir, harness.Reason{Kind: "default", From: dir, Name: `~\AppData\Local\hermes` + suffix}})
		}
	}
	for _, h := range homes {
		if !f.Place(h.dir, h.reason.String()) {
			continue
		}
		if len(opts.Dirs) == 0 {
			f.Installed()
		}
		stores := []string{filepath.Join(h.dir, storeName)}
		profiles, _ := filepath.Glob(filepath.Join(h.dir, "profiles", "*", storeName))
		for _, p := range profiles {
			// profiles/.deleted holds the tombstones of deleted profiles.
			if !strings.HasPrefix(filepath.Base(filepath.Dir(p)), ".") {
				stores = append(stores, p)
			}
		}
		for _, p := range stores {
			if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
				f.Installed()
				f.Add(p, h.reason)
			}
		}
	}
	return f.Result()
}
