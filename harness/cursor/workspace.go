package cursor

import (
	"context"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/internal/jsonscan"
)

// maxWorkspaceJSON bounds a workspace.json read: it holds one URI.
const maxWorkspaceJSON = 1 << 20

// workspaceFolder is the project of the workspace whose storage directory
// is dir: the folder its workspace.json names ({"folder": "file:///…"}),
// or the directory of the .code-workspace file it names
// ({"workspace": …}); "" for a window with no folder or a folder that is
// not a local file.
func workspaceFolder(dir string) string {
	f, err := harness.OpenSide(filepath.Join(dir, "workspace.json"))
	if err != nil {
		return ""
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxWorkspaceJSON))
	if err != nil {
		return ""
	}
	var folder, workspace string
	sc := jsonscan.New(data)
	sc.Object(func(key []byte) bool {
		switch string(key) {
		case "folder":
			folder = sc.String()
		case "workspace":
			workspace = sc.String()
		default:
			return false
		}
		return true
	})
	if p := fileURIPath(folder); p != "" {
		return p
	}
	if p := fileURIPath(workspace); p != "" {
		return filepath.Dir(p)
	}
	return ""
}

// fileURIPath is the path a file: URI names ("file:///c%3A/Users/x" is
// C:\Users\x), "" for another scheme.
func fileURIPath(uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" {
		return ""
	}
	return uriPathToFile(u.Path)
}

// uriPathToFile turns a URI's path into a file path: "/c:/Users/x" into
// "c:\Users\x", others kept.
func uriPathToFile(p string) string {
	if len(p) >= 3 && p[0] == '/' && p[2] == ':' && isLetter(p[1]) {
		return strings.ReplaceAll(p[1:], "/", `\`)
	}
	return p
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// workspaceProjects maps each conversation a global store holds to the
// project of the workspace that lists it: every workspace store beside
// the global one (…/User/workspaceStorage/<hash>/state.vscdb) names its
// conversations in composer.composerData's allComposers[].composerId, and
// its folder in workspace.json. Only that key of each workspace store is
// read. A conversation no workspace lists (one opened with no folder) has
// no project.
func workspaceProjects(ctx context.Context, global string) map[string]string {
	out := map[string]string{}
	user := filepath.Dir(filepath.Dir(global))
	if filepath.Base(filepath.Dir(global)) != "globalStorage" {
		return out
	}
	stores, _ := filepath.Glob(filepath.Join(user, "workspaceStorage", "*", storeName))
	sort.Strings(stores)
	if len(stores) > maxWorkspaces {
		stores = stores[:maxWorkspaces]
	}
	for _, p := range stores {
		folder := workspaceFolder(filepath.Dir(p))
		if folder == "" {
			continue
		}
		for _, id := range workspaceComposers(ctx, p) {
			if _, ok := out[id]; !ok {
				out[id] = folder
			}
		}
	}
	return out
}

// workspaceComposers lists the conversation ids a workspace store's
// composer.composerData names; none when it cannot be read.
func workspaceComposers(ctx context.Context, path string) []string {
	st, done, err := openStore(ctx, path, false)
	if err != nil {
		if st, done, err = openStore(ctx, path, true); err != nil {
			return nil
		}
	}
	defer done()
	v, _, err := st.inlineValue(ctx)
	if err != nil || v == nil {
		return nil
	}
	var ids []string
	sc := jsonscan.New(v)
	sc.Object(func(key []byte) bool {
		if string(key) != "allComposers" {
			return false
		}
		sc.Array(func() {
			sc.Object(func(key []byte) bool {
				if string(key) != "composerId" {
					return false
				}
				if id := sc.String(); id != "" {
					ids = append(ids, id)
				}
				return true
			})
		})
		return true
	})
	return ids
}

// isFile reports a regular file at p, through symlinks.
func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}
