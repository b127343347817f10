package release

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/deja-dev/deja/internal/racebuild"
)

// targets are the six the release builds (TestReleaseConfig holds
// .goreleaser.yaml to them).
var targets = [][2]string{
	{"linux", "amd64"}, {"linux", "arm64"},
	{"darwin", "amd64"}, {"darwin", "arm64"},
	{"windows", "amd64"}, {"windows", "arm64"},
}

// The release targets compile the way the release builds them (no cgo,
// paths trimmed, stripped), and each binary fits the size the README
// promises. A cross build compiles every package again for its target,
// about a minute and a half each on the 2-core machine with an empty build
// cache, seconds with a warm one. A plain run builds windows/amd64, the
// largest binary and the one target with deja's own Windows files
// (TestInstallScript builds and measures this machine's);
// DEJA_RELEASE_TARGETS=all builds all six, as goreleaser's snapshot does,
// and ./test.sh runs it so, in the background at the lowest priority while
// its other steps run. It builds without the race detector, so a race run
// skips it; DEJA_TEST_SKIP_TARGETS leaves it out (.ci/run's first pass,
// which has no ../shared and builds the same code).
// TestEveryReleaseTargetResolves and TestEveryReleaseTargetTypeChecks look
// at all six in every run.
func TestReleaseTargetsBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("cross-compiles deja")
	}
	if racebuild.Enabled {
		t.Skip("builds deja without -race; ./test.sh runs it without the race detector, for all six targets")
	}
	if os.Getenv("DEJA_TEST_SKIP_TARGETS") != "" {
		t.Skip("DEJA_TEST_SKIP_TARGETS is set")
	}
	build := [][2]string{{"windows", "amd64"}}
	if os.Getenv("DEJA_RELEASE_TARGETS") == "all" {
		build = targets
	}
	dir := t.TempDir()
	for _, tg := range build {
		goos, goarch := tg[0], tg[1]
		bin := filepath.Join(dir, "deja_"+goos+"_"+goarch)
		cmd := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w -X main.version=v0.0.0-targets", "-o", bin, "./cmd/deja")
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+goos, "GOARCH="+goarch)
		start := time.Now()
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("%s/%s: go build: %v\n%s", goos, goarch, err, out)
			continue
		}
		st, err := os.Stat(bin)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s/%s: %d bytes stripped, built in %s", goos, goarch, st.Size(), time.Since(start).Round(time.Second))
		if st.Size() > maxBinaryBytes {
			t.Errorf("%s/%s: the stripped binary is %d bytes, more than %d", goos, goarch, st.Size(), maxBinaryBytes)
		}
		// Each is checked and dropped: six binaries would hold 170 MB of
		// the temporary directory at once.
		os.Remove(bin)
	}
}
