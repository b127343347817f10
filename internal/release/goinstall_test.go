package release

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/deja-dev/deja/internal/racebuild"
)

// installVersion is the version the test's module proxy serves this
// checkout as: no tag deja has made or will make.
const installVersion = "v0.999.0"

// TestGoInstallFromTheModulePath runs the README's
// `go install github.com/deja-dev/deja/cmd/deja@latest` against a module
// proxy on disk that serves this checkout as the module's only version,
// zipped as the Go proxy serves a tagged release: the module resolves from
// its path, builds with what its go.mod names (a replace or exclude
// directive, which go install refuses, fails it), and the binary says the
// version it was installed at. The other modules come from this machine's
// module cache, served as a proxy too, so the test needs no network (nor
// the checksum database, which a real install asks); -trimpath and no cgo,
// as the release builds, let Go's build cache give back the dependencies
// the release targets compiled. It runs with them, in ./test.sh's
// background step.
func TestGoInstallFromTheModulePath(t *testing.T) {
	if testing.Short() {
		t.Skip("builds deja from a module proxy")
	}
	if racebuild.Enabled {
		t.Skip("builds deja without -race; ./test.sh runs it without the race detector")
	}
	if os.Getenv("DEJA_TEST_SKIP_TARGETS") != "" {
		t.Skip("DEJA_TEST_SKIP_TARGETS is set")
	}
	gomodcache := goEnv(t, "GOMODCACHE")
	proxy := t.TempDir()
	modDir := filepath.Join(proxy, module, "@v")
	if err := os.MkdirAll(modDir, 0o755); err != nil {
		t.Fatal(err)
	}
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{
		"list":                   []byte(installVersion + "\n"),
		installVersion + ".info": fmt.Appendf(nil, `{"Version":%q,"Time":"2026-12-01T00:00:00Z"}`, installVersion),
		installVersion + ".mod":  gomod,
		installVersion + ".zip":  moduleZip(t, root, module+"@"+installVersion),
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(modDir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	home := t.TempDir()
	bin := filepath.Join(home, "bin")
	cmd := exec.Command("go", "install", module+"/cmd/deja@latest")
	cmd.Dir = home
	cmd.Env = append(os.Environ(),
		"GOBIN="+bin,
		"GOMODCACHE="+filepath.Join(home, "modcache"),
		"GOPROXY="+fileURL(proxy)+","+fileURL(filepath.Join(gomodcache, "cache", "download")),
		// No checksum database offline: deja's module is this checkout, the
		// others the copies this machine's module cache verified already.
		"GOSUMDB=off",
		"GOFLAGS=-modcacherw -trimpath",
		"GOTOOLCHAIN=local",
		"GOWORK=off",
		"CGO_ENABLED=0",
	)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go install %s/cmd/deja@latest: %v\n%s", module, err, out)
	}
	exe := filepath.Join(bin, "deja")
	if runtime.GOOS == "windows" {
		exe += ".exe"
	}
	out, err := exec.Command(exe, "--version").CombinedOutput()
	if err != nil {
		t.Fatalf("deja --version: %v\n%s", err, out)
	}
	if !strings.HasPrefix(string(out), "deja "+installVersion+" ") {
		t.Errorf("deja --version printed %q, want the version it was installed at, %s", out, installVersion)
	}
}

// moduleZip zips the checkout's files as a module proxy serves a version:
// every file under prefix/, the files git tracks or would add (a checkout
// without git: every file but .git's), no directory of another module.
func moduleZip(t *testing.T, dir, prefix string) []byte {
	t.Helper()
	var names []string
	if out, err := exec.Command("git", "-C", dir, "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output(); err == nil {
		for _, n := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
			if n != "" {
				names = append(names, n)
			}
		}
	} else {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && d.Name() == ".git" {
				return filepath.SkipDir
			}
			if d.Type().IsRegular() {
				rel, _ := filepath.Rel(dir, path)
				names = append(names, filepath.ToSlash(rel))
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, name := range names {
		if name != "go.mod" && (strings.HasSuffix(name, "/go.mod") || strings.HasPrefix(name, "vendor/")) {
			t.Fatalf("%s: the module zip would need another module's or vendor's files left out; this test does not", name)
		}
		st, err := os.Lstat(filepath.Join(dir, name))
		if err != nil {
			// Tracked but deleted in this checkout: not part of it.
			continue
		}
		if !st.Mode().IsRegular() {
			continue // a module zip holds no links
		}
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		w, err := zw.Create(prefix + "/" + name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(data); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func goEnv(t *testing.T, name string) string {
	t.Helper()
	out, err := exec.Command("go", "env", name).Output()
	if err != nil {
		t.Fatalf("go env %s: %v", name, err)
	}
	return strings.TrimSpace(string(out))
}

// fileURL is a GOPROXY entry for a directory.
func fileURL(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		panic(err)
	}
	abs = filepath.ToSlash(abs)
	if !strings.HasPrefix(abs, "/") {
		abs = "/" + abs // a Windows drive: file:///C:/...
	}
	return "file://" + abs
}
