package antigravity

import (
	"os"
	"path/filepath"
	"sort"
	"strconv"

	"github.com/deja-dev/deja/harness"
)

// Discover finds Antigravity's conversations that hold readable files:
// the brain/<uuid> folders under ~/.gemini/antigravity (and its siblings
// ~/.gemini/antigravity-*, the agy CLI's), the same on Linux, macOS and
// Windows (%USERPROFILE%\.gemini); Antigravity has no variable that moves
// it. opts.Dirs (antigravity.dirs) replace these; each may be such a
// folder, a brain folder, or a folder holding Windsurf's cascade/.
//
// It counts the encrypted conversations it cannot read, Antigravity's
// conversations/*.pb and Windsurf's ~/.codeium/windsurf*/cascade/*.pb,
// and says so in a warning: a user who sees none of them in recall learns
// why.
func Discover(opts harness.DiscoverOptions) harness.Discovery {
	var f harness.Finder
	var sources []harness.Source
	seen := map[string]bool{}
	encrypted := false
	look := func(root string, r harness.Reason) {
		if !f.Place(root, r.String()) {
			return
		}
		var found int
		for _, brain := range []string{filepath.Join(root, "brain"), root} {
			dirs, _ := filepath.Glob(filepath.Join(brain, "*", generated))
			for _, g := range dirs {
				conv := filepath.Dir(g)
				resolved, err := filepath.EvalSymlinks(conv)
				if err != nil || !harness.IsUUID(filepath.Base(conv)) || seen[resolved] {
					continue
				}
				if fi, err := os.Stat(g); err != nil || !fi.IsDir() {
					continue
				}
				seen[resolved] = true
				found++
				files, _ := sideFiles(resolved)
				s := harness.Source{Path: resolved, Reasons: []harness.Reason{r}}
				for _, sf := range files {
					s.Size += sf.size
					if sf.mod.After(s.ModTime) {
						s.ModTime = sf.mod
					}
				}
				sources = append(sources, s)
			}
		}
		if n := countPB(filepath.Join(root, "conversations")); n > 0 {
			encrypted = true
			f.Warn("%s in %s %s encrypted; deja cannot read %s, only the notices and transcripts of brain/ (%s)",
				conversations(n), filepath.Join(root, "conversations"), are(n), them(n), conversations(found))
		}
		if n := countPB(filepath.Join(root, "cascade")); n > 0 {
			encrypted = true
			f.Warn("Windsurf: %s in %s %s encrypted (AES-GCM); deja cannot read %s", conversations(n), filepath.Join(root, "cascade"), are(n), them(n))
		}
	}
	if len(opts.Dirs) > 0 {
		for _, dir := range opts.Dirs {
			dir = harness.ExpandHome(dir, opts.Home)
			look(dir, harness.Reason{Kind: "config", From: dir, Name: "antigravity.dirs"})
		}
	} else if opts.Home != "" {
		roots, _ := filepath.Glob(filepath.Join(opts.Home, ".gemini", "antigravity*"))
		if len(roots) == 0 {
			roots = []string{filepath.Join(opts.Home, ".gemini", "antigravity")}
		}
		sort.Strings(roots)
		for _, root := range roots {
			if fi, err := os.Stat(root); err == nil && !fi.IsDir() {
				continue
			}
			look(root, harness.Reason{Kind: "default", From: root, Name: "~/.gemini/" + filepath.Base(root)})
		}
		cascades, _ := filepath.Glob(filepath.Join(opts.Home, ".codeium", "windsurf*"))
		sort.Strings(cascades)
		for _, ws := range cascades {
			if n := countPB(filepath.Join(ws, "cascade")); n > 0 {
				f.Place(filepath.Join(ws, "cascade"), "Windsurf")
				f.Warn("Windsurf: %s in %s %s encrypted (AES-GCM); deja cannot read %s", conversations(n), filepath.Join(ws, "cascade"), are(n), them(n))
			}
		}
	}
	d := f.Result()
	for _, p := range d.Places {
		d.Installed = d.Installed || p.Exists && p.Why != "Windsurf"
	}
	if encrypted && len(sources) == 0 {
		// The warning above says why nothing was found; 'installed but
		// found nothing' would say it again, less well.
		d.Installed = false
	}
	sort.Slice(sources, func(i, j int) bool { return sources[i].Path < sources[j].Path })
	d.Sources = sources
	return d
}

// conversations, are and them word a warning for n conversations: "1
// conversation in … is encrypted; deja cannot read it".
func conversations(n int) string {
	if n == 1 {
		return "1 conversation"
	}
	return strconv.Itoa(n) + " conversations"
}

func are(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

func them(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}

// countPB counts the .pb files in dir: the encrypted conversations.
func countPB(dir string) int {
	m, _ := filepath.Glob(filepath.Join(dir, "*.pb"))
	return len(m)
}
