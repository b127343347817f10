package release

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/deja-dev/deja/internal/racebuild"
	"github.com/deja-dev/deja/internal/words"
)

// module is deja's module path: its packages are checked whole, their
// functions' bodies included.
const module = "github.com/deja-dev/deja"

// The check sees what only another system's build sees: a field of
// syscall.Stat_t that Linux has and darwin does not, in a unix file, is
// an error for the darwin targets alone.
func TestTypeCheckSeesAnotherSystemsSlip(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list and go/types")
	}
	dir := t.TempDir()
	files := map[string]string{
		"go.mod":  "module example.com/slip\n\ngo 1.26\n",
		"main.go": "package main\n\nimport \"example.com/slip/stat\"\n\nfunc main() { println(stat.Atime(\"/\")) }\n",
		"stat/stat_unix.go": "//go:build unix\n\npackage stat\n\nimport \"syscall\"\n\n" +
			"func Atime(path string) int64 {\n\tvar st syscall.Stat_t\n\tif syscall.Stat(path, &st) != nil {\n\t\treturn 0\n\t}\n\treturn st.Atim.Sec\n}\n",
		"stat/stat_windows.go": "package stat\n\nfunc Atime(string) int64 { return 0 }\n",
	}
	for name, text := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tg := range targets {
		_, errs := typeCheck(dir, "example.com/slip", ".", tg[0], tg[1])
		fails := len(errs) > 0
		if want := tg[0] == "darwin"; fails != want {
			t.Errorf("%s/%s: errors %v, want errors %v", tg[0], tg[1], errs, want)
		} else if fails && !strings.Contains(errs[0].Error(), "Atim") {
			t.Errorf("%s/%s: %v, want the missing field Atim", tg[0], tg[1], errs[0])
		}
	}
}

// Every release target type-checks, deja's own code to the last function
// body: the check the compiler makes before it writes code, in seconds,
// where TestReleaseTargetsBuild's builds of the six (in ./test.sh's
// background step) take minutes with a cold cache. The darwin
// targets compile deja's unix files against darwin's system calls, whose
// types and constants differ from Linux's, and serve/peer_other.go, which
// no Linux or Windows build reads; this is where such a slip shows first. What
// deja imports is checked by its declarations only (the bodies are its
// authors'), which keeps a target to seconds where building it takes
// minutes. Not checked here: assembly, and what only the linker sees.
func TestEveryReleaseTargetTypeChecks(t *testing.T) {
	if testing.Short() {
		t.Skip("type-checks deja and what it imports for six targets")
	}
	if racebuild.Enabled {
		t.Skip("10 s of go/types, six minutes under the race detector; test.sh runs this package without it too")
	}
	var wg sync.WaitGroup
	for _, tg := range targets {
		wg.Add(1)
		go func() {
			defer wg.Done()
			start := time.Now()
			n, errs := typeCheck(root, module, "./cmd/deja", tg[0], tg[1])
			for _, err := range errs {
				t.Errorf("%s/%s: %v", tg[0], tg[1], err)
			}
			if len(errs) == 0 {
				t.Logf("%s/%s: %d packages type-check (deja's %s), in %s", tg[0], tg[1], n.all, words.Count(n.own, "package"), time.Since(start).Round(time.Second))
			}
		}()
	}
	wg.Wait()
}

// A listed package is what `go list -deps -json` says of it for a target.
type listed struct {
	ImportPath string
	Dir        string
	GoFiles    []string
	ImportMap  map[string]string
	Module     *struct{ GoVersion string }
	Error      *struct{ Err string }
}

type counts struct{ all, own int }

// typeCheck type-checks pattern, listed in dir, and everything it imports
// as a build for goos/goarch without cgo would see them: the packages of
// module whole, the others by their declarations. It gives up after the
// first package that fails, with at most ten of its errors.
func typeCheck(dir, module, pattern, goos, goarch string) (counts, []error) {
	var n counts
	cmd := exec.Command("go", "list", "-deps", "-json=ImportPath,Dir,GoFiles,ImportMap,Module,Error", pattern)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOOS="+goos, "GOARCH="+goarch, "CGO_ENABLED=0")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return n, []error{fmt.Errorf("go list: %v\n%s", err, stderr.Bytes())}
	}
	checked := map[string]*types.Package{"unsafe": types.Unsafe}
	fset := token.NewFileSet()
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listed
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return n, []error{fmt.Errorf("go list's output: %v", err)}
		}
		if p.ImportPath == "unsafe" {
			continue
		}
		if p.Error != nil {
			return n, []error{fmt.Errorf("%s: %s", p.ImportPath, p.Error.Err)}
		}
		// go list writes a package after everything it imports, so each
		// import is checked by the time a package asks for it.
		own := p.ImportPath == module || strings.HasPrefix(p.ImportPath, module+"/")
		var files []*ast.File
		for _, name := range p.GoFiles {
			f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, parser.SkipObjectResolution)
			if err != nil {
				return n, []error{err}
			}
			files = append(files, f)
		}
		var errs []error
		conf := types.Config{
			IgnoreFuncBodies: !own,
			GoVersion:        goVersion(p),
			Importer:         mapImporter{checked, p.ImportMap},
			Error: func(err error) {
				if len(errs) < 10 {
					errs = append(errs, err)
				}
			},
		}
		pkg, _ := conf.Check(p.ImportPath, fset, files, nil)
		if len(errs) > 0 {
			return n, errs
		}
		checked[p.ImportPath] = pkg
		n.all++
		if own {
			n.own++
		}
	}
	if n.own == 0 {
		return n, []error{fmt.Errorf("go list named no package of %s", module)}
	}
	return n, nil
}

// mapImporter hands a package the ones checked before it, through its
// import map (the standard library's vendored packages).
type mapImporter struct {
	checked   map[string]*types.Package
	importMap map[string]string
}

func (m mapImporter) Import(path string) (*types.Package, error) {
	if to, ok := m.importMap[path]; ok {
		path = to
	}
	if p, ok := m.checked[path]; ok {
		return p, nil
	}
	return nil, fmt.Errorf("%s is not checked before the package that imports it", path)
}

// goVersion is the language version the compiler holds a package to: its
// module's go line (none for the standard library, which is the
// toolchain's own).
func goVersion(p listed) string {
	if p.Module == nil || p.Module.GoVersion == "" {
		return ""
	}
	return "go" + p.Module.GoVersion
}
