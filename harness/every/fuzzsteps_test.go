package every

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// Every reader is fuzzed by ./test.sh, and every fuzz step names exactly
// one target: `go test -fuzz` takes a pattern, and a package with two
// targets whose names share a prefix (FuzzParse, FuzzParsePrompts) makes
// an unanchored pattern fail the step without fuzzing anything.
func TestTestShFuzzesEveryReaderOnce(t *testing.T) {
	data, err := os.ReadFile("../../test.sh")
	if err != nil {
		t.Fatal(err)
	}
	script := string(data)
	fuzzed := map[string]bool{} // "./harness/zed FuzzParse"
	loops := map[string][]string{}
	for _, m := range regexp.MustCompile(`for (\w+) in ([^;\n]+); do`).FindAllStringSubmatch(script, -1) {
		loops[m[1]] = strings.Fields(m[2])
	}
	for _, m := range regexp.MustCompile(`-fuzz (\S+) -fuzztime \S+ "?([^"\s]+)"?`).FindAllStringSubmatch(script, -1) {
		name, ok := strings.CutPrefix(m[1], "'^")
		name, ok2 := strings.CutSuffix(name, "$'")
		if !ok || !ok2 || !regexp.MustCompile(`^Fuzz\w+$`).MatchString(name) {
			t.Errorf("test.sh: -fuzz %s: anchor the pattern ('^FuzzName$') so it names one target", m[1])
			continue
		}
		pkgs := []string{m[2]}
		if v, ok := strings.CutPrefix(m[2], "$"); ok {
			pkgs = loops[v]
		}
		for _, pkg := range pkgs {
			if !definesFuzz(t, pkg, name) {
				t.Errorf("test.sh fuzzes %s in %s, which has no such target", name, pkg)
			}
			fuzzed[pkg+" "+name] = true
		}
	}
	for _, r := range Readers() {
		pkg := "./" + strings.TrimPrefix(reflect.TypeOf(r).PkgPath(), "github.com/deja-dev/deja/")
		if !fuzzed[pkg+" FuzzParse"] {
			t.Errorf("reader %s (%s) has no FuzzParse step in test.sh", r.Name(), pkg)
		}
	}
}

func definesFuzz(t *testing.T, pkg, name string) bool {
	files, err := filepath.Glob(filepath.Join("../..", pkg, "*_test.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), "func "+name+"(f *testing.F)") {
			return true
		}
	}
	return false
}
