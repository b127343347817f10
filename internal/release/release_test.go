package release

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/deja-dev/deja/internal/racebuild"
)

// root is the repository root, from this package's directory.
const root = "../.."

// maxBinaryBytes is the most the released binary (stripped, as
// .goreleaser.yaml builds it) may weigh.
const maxBinaryBytes = 30_000_000

// archiveName is the archive install.sh and .goreleaser.yaml agree on for
// this machine.
func archiveName() string {
	return fmt.Sprintf("deja_%s_%s.tar.gz", runtime.GOOS, runtime.GOARCH)
}

// releaseConfig is the part of .goreleaser.yaml the tests hold to.
type releaseConfig struct {
	Version int `yaml:"version"`
	Builds  []struct {
		Main    string   `yaml:"main"`
		Binary  string   `yaml:"binary"`
		Env     []string `yaml:"env"`
		GOOS    []string `yaml:"goos"`
		GOARCH  []string `yaml:"goarch"`
		Flags   []string `yaml:"flags"`
		Ldflags []string `yaml:"ldflags"`
	} `yaml:"builds"`
	Archives []struct {
		Formats         []string `yaml:"formats"`
		NameTemplate    string   `yaml:"name_template"`
		FormatOverrides []struct {
			GOOS    string   `yaml:"goos"`
			Formats []string `yaml:"formats"`
		} `yaml:"format_overrides"`
	} `yaml:"archives"`
	Checksum struct {
		NameTemplate string `yaml:"name_template"`
		Algorithm    string `yaml:"algorithm"`
	} `yaml:"checksum"`
	SBOMs []struct {
		Artifacts string   `yaml:"artifacts"`
		Cmd       string   `yaml:"cmd"`
		Args      []string `yaml:"args"`
	} `yaml:"sboms"`
	Casks []struct {
		Name       string `yaml:"name"`
		Repository struct {
			Owner, Name string
		} `yaml:"repository"`
	} `yaml:"homebrew_casks"`
	Scoops []struct {
		Name       string `yaml:"name"`
		Repository struct {
			Owner, Name string
		} `yaml:"repository"`
	} `yaml:"scoops"`
}

// The release configuration builds what the README promises: six targets,
// stripped, version-free archive names (install.sh fetches by them), zip on
// Windows, SHA-256 checksums, an SBOM per binary, a Homebrew cask and a
// Scoop manifest.
func TestReleaseConfig(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(root, ".goreleaser.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var c releaseConfig
	if err := yaml.Unmarshal(data, &c); err != nil {
		t.Fatal(err)
	}
	if c.Version != 2 || len(c.Builds) != 1 || len(c.Archives) != 1 {
		t.Fatalf("want a goreleaser v2 configuration with one build and one archive, got %+v", c)
	}
	b := c.Builds[0]
	if b.Main != "./cmd/deja" || b.Binary != "deja" || !slices.Contains(b.Env, "CGO_ENABLED=0") {
		t.Errorf("build %+v: want ./cmd/deja as deja without cgo", b)
	}
	for _, os := range []string{"linux", "darwin", "windows"} {
		if !slices.Contains(b.GOOS, os) {
			t.Errorf("no %s build", os)
		}
	}
	for _, arch := range []string{"amd64", "arm64"} {
		if !slices.Contains(b.GOARCH, arch) {
			t.Errorf("no %s build", arch)
		}
	}
	ld := strings.Join(b.Ldflags, " ")
	if !strings.Contains(ld, "-s -w") || !strings.Contains(ld, "-X main.version={{ .Version }}") {
		t.Errorf("ldflags %q: want stripped and the version set", ld)
	}
	a := c.Archives[0]
	if a.NameTemplate != "{{ .ProjectName }}_{{ .Os }}_{{ .Arch }}" || !slices.Equal(a.Formats, []string{"tar.gz"}) {
		t.Errorf("archive %+v: want deja_OS_ARCH.tar.gz, the name install.sh fetches", a)
	}
	if len(a.FormatOverrides) != 1 || a.FormatOverrides[0].GOOS != "windows" || !slices.Equal(a.FormatOverrides[0].Formats, []string{"zip"}) {
		t.Errorf("format overrides %+v: want zip on windows", a.FormatOverrides)
	}
	if c.Checksum.NameTemplate != "checksums.txt" || c.Checksum.Algorithm != "sha256" {
		t.Errorf("checksum %+v: want sha256 in checksums.txt, what install.sh reads", c.Checksum)
	}
	if len(c.SBOMs) != 1 || c.SBOMs[0].Cmd != "go" || !slices.Contains(c.SBOMs[0].Args, "../scripts/sbom") {
		t.Errorf("sboms %+v: want scripts/sbom run over each binary", c.SBOMs)
	}
	if len(c.Casks) != 1 || c.Casks[0].Name != "deja" || c.Casks[0].Repository.Name == "" {
		t.Errorf("homebrew casks %+v: want one for deja", c.Casks)
	}
	if len(c.Scoops) != 1 || c.Scoops[0].Name != "deja" || c.Scoops[0].Repository.Name == "" {
		t.Errorf("scoops %+v: want one for deja", c.Scoops)
	}
	script, err := os.ReadFile(filepath.Join(root, "install.sh"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(script, []byte(`archive="deja_${os}_${arch}.tar.gz"`)) {
		t.Error("install.sh does not fetch deja_OS_ARCH.tar.gz, the archive name the release makes")
	}
}

// release is a set of release artifacts for this machine: the archive,
// checksums.txt and the version the binary reports.
type release struct {
	dir, version string
}

// snapshot returns release artifacts: goreleaser's own when
// DEJA_RELEASE_DIST names the dist/ of `goreleaser release --snapshot`,
// else an archive this test builds the way .goreleaser.yaml does (stripped,
// the version set), with its checksums.txt.
func snapshot(t *testing.T) release {
	t.Helper()
	if dist := os.Getenv("DEJA_RELEASE_DIST"); dist != "" {
		var meta struct {
			Version string `json:"version"`
		}
		data, err := os.ReadFile(filepath.Join(dist, "metadata.json"))
		if err != nil {
			t.Fatalf("DEJA_RELEASE_DIST: %v (run goreleaser release --snapshot --clean first)", err)
		}
		if err := json.Unmarshal(data, &meta); err != nil || meta.Version == "" {
			t.Fatalf("DEJA_RELEASE_DIST: metadata.json has no version (%v)", err)
		}
		t.Logf("using goreleaser's artifacts in %s (version %s)", dist, meta.Version)
		return release{dir: dist, version: meta.Version}
	}
	const version = "v0.0.0-installtest"
	dir := t.TempDir()
	bin := filepath.Join(t.TempDir(), "deja")
	// Built as .goreleaser.yaml builds a release (TestReleaseConfig holds
	// it to these): without cgo, paths trimmed, stripped.
	build := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w -X main.version="+version, "-o", bin, "./cmd/deja")
	build.Dir = root
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	st, err := os.Stat(bin)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("stripped binary: %d bytes", st.Size())
	if st.Size() > maxBinaryBytes {
		t.Errorf("the stripped binary is %d bytes, more than %d", st.Size(), maxBinaryBytes)
	}
	writeArchive(t, filepath.Join(dir, archiveName()), map[string]string{"deja": bin, "README.md": filepath.Join(root, "README.md")})
	writeChecksums(t, dir)
	return release{dir: dir, version: version}
}

func writeArchive(t *testing.T, path string, files map[string]string) {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for name, src := range files {
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o755, Size: int64(len(data)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(data); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// writeChecksums writes dir/checksums.txt as goreleaser does: one
// "SHA256  name" line per archive.
func writeChecksums(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".tar.gz") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(data)
		lines = append(lines, hex.EncodeToString(sum[:])+"  "+e.Name())
	}
	if err := os.WriteFile(filepath.Join(dir, "checksums.txt"), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// server serves dir as a release host does: /latest/download/NAME and
// /download/TAG/NAME, and records the paths asked for.
type server struct {
	*httptest.Server
	mu   sync.Mutex
	got  []string
	dir  string
	tags []string
}

func serve(t *testing.T, dir string, tags ...string) *server {
	s := &server{dir: dir, tags: tags}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.got = append(s.got, r.URL.Path)
		s.mu.Unlock()
		rest, ok := strings.CutPrefix(r.URL.Path, "/latest/download/")
		if !ok {
			for _, tag := range s.tags {
				if rest, ok = strings.CutPrefix(r.URL.Path, "/download/"+tag+"/"); ok {
					break
				}
			}
		}
		if !ok || strings.Contains(rest, "/") {
			http.NotFound(w, r)
			return
		}
		http.ServeFile(w, r, filepath.Join(s.dir, rest))
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *server) paths() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.got)
}

// install runs install.sh with args against base, in a HOME of its own, and
// returns its output and error.
func install(t *testing.T, base string, args ...string) (string, error) {
	t.Helper()
	script, err := filepath.Abs(filepath.Join(root, "install.sh"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sh", append([]string{script}, args...)...)
	cmd.Env = append(os.Environ(), "DEJA_INSTALL_URL="+base, "HOME="+t.TempDir(), "SHELL=/bin/bash")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// install.sh picks this machine's archive, checks it, installs a deja that
// runs and reports the release's version, and says how to put the directory
// on PATH; a tampered archive, or one checksums.txt does not list, is
// refused and leaves what was installed as it was.
func TestInstallScript(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("install.sh is for Linux and macOS; Windows installs with Scoop")
	}
	if racebuild.Enabled {
		t.Skip("builds deja without -race; test.sh runs it in its step without the race detector")
	}
	rel := snapshot(t)
	// The release's tag: goreleaser's version drops the tag's "v".
	tag := rel.version
	if !strings.HasPrefix(tag, "v") {
		tag = "v" + tag
	}
	srv := serve(t, rel.dir, tag)

	dir := filepath.Join(t.TempDir(), "bin")
	out, err := install(t, srv.URL, "--dir", dir)
	if err != nil {
		t.Fatalf("install.sh: %v\n%s", err, out)
	}
	version, err := exec.Command(filepath.Join(dir, "deja"), "version").Output()
	if err != nil {
		t.Fatalf("installed deja version: %v", err)
	}
	if !strings.Contains(string(version), rel.version) {
		t.Errorf("installed deja says %q, want version %s", version, rel.version)
	}
	for _, want := range []string{"installed deja " + rel.version, dir + " is not on your PATH", `export PATH="` + dir + `:$PATH"`} {
		if !strings.Contains(out, want) {
			t.Errorf("install.sh said:\n%s\nwant %q", out, want)
		}
	}
	if got := srv.paths(); !slices.Contains(got, "/latest/download/"+archiveName()) || !slices.Contains(got, "/latest/download/checksums.txt") {
		t.Errorf("install.sh asked for %v, want this machine's archive and checksums.txt of the latest release", got)
	}

	// A named version is fetched from its own release.
	dir2 := filepath.Join(t.TempDir(), "bin")
	if out, err := install(t, srv.URL, "--dir", dir2, "--version", tag); err != nil {
		t.Fatalf("install.sh --version %s: %v\n%s", tag, err, out)
	}
	if !slices.Contains(srv.paths(), "/download/"+tag+"/"+archiveName()) {
		t.Errorf("install.sh --version asked for %v", srv.paths())
	}

	// A tampered archive: one byte changed after the checksums were made.
	bad := t.TempDir()
	copyDir(t, rel.dir, bad)
	archive := filepath.Join(bad, archiveName())
	data, err := os.ReadFile(archive)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)/2] ^= 0x40
	if err := os.WriteFile(archive, data, 0o644); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(filepath.Join(dir, "deja"))
	if err != nil {
		t.Fatal(err)
	}
	tampered := serve(t, bad)
	out, err = install(t, tampered.URL, "--dir", dir)
	if err == nil || !strings.Contains(out, "checksum mismatch") || !strings.Contains(out, "nothing installed") {
		t.Errorf("tampered archive: err %v, output:\n%s\nwant a refusal that says the checksum does not match", err, out)
	}
	if after, _ := os.ReadFile(filepath.Join(dir, "deja")); !bytes.Equal(before, after) {
		t.Error("a refused install changed the deja already installed")
	}

	// An archive checksums.txt does not list.
	if err := os.WriteFile(filepath.Join(bad, "checksums.txt"), []byte("0000  deja_plan9_mips.tar.gz\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fresh := filepath.Join(t.TempDir(), "bin")
	out, err = install(t, tampered.URL, "--dir", fresh)
	if err == nil || !strings.Contains(out, "lists no "+archiveName()) {
		t.Errorf("unlisted archive: err %v, output:\n%s\nwant a refusal", err, out)
	}
	if _, err := os.Stat(filepath.Join(fresh, "deja")); err == nil {
		t.Error("a refused install left a deja behind")
	}

	// A directory that cannot be made: nothing is left half-written.
	notDir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notDir, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err = install(t, srv.URL, "--dir", filepath.Join(notDir, "bin"))
	if err == nil || !strings.Contains(out, "choose another with --dir") {
		t.Errorf("unwritable --dir: err %v, output:\n%s", err, out)
	}

	// No such release.
	out, err = install(t, srv.URL, "--dir", fresh, "--version", "v9.9.9")
	if err == nil || !strings.Contains(out, "could not download") {
		t.Errorf("missing release: err %v, output:\n%s", err, out)
	}
}

func copyDir(t *testing.T, from, to string) {
	t.Helper()
	for _, name := range []string{archiveName(), "checksums.txt"} {
		data, err := os.ReadFile(filepath.Join(from, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(to, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// Every target the release builds resolves: each package deja needs has
// files for that OS and architecture without cgo. The full cross build is
// the release's own (`goreleaser release --snapshot --clean` builds all
// six); this is the part cheap enough for every test run.
func TestEveryReleaseTargetResolves(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list six times")
	}
	for _, goos := range []string{"linux", "darwin", "windows"} {
		for _, goarch := range []string{"amd64", "arm64"} {
			cmd := exec.Command("go", "list", "-e", "-deps", "-f",
				`{{with .Error}}{{$.ImportPath}}: {{.}}{{"\n"}}{{end}}{{range .DepsErrors}}{{$.ImportPath}}: {{.}}{{"\n"}}{{end}}`, "./cmd/deja")
			cmd.Dir = root
			cmd.Env = append(os.Environ(), "GOOS="+goos, "GOARCH="+goarch, "CGO_ENABLED=0")
			// stderr says which modules a target fetches the first time
			// ("go: downloading ..."); only errors count.
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil || len(bytes.TrimSpace(out)) != 0 {
				t.Errorf("%s/%s: go list: %v\n%s%s", goos, goarch, err, out, stderr.Bytes())
			}
		}
	}
}
