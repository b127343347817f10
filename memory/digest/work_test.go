package digest

import "testing"

// TestCommandKey names a command by its invocation, past the wrappers a
// shell line carries, and nothing for the commands every session runs.
func TestCommandKey(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"go test ./...", "go test"},
		{"go test -run TestX ./memory/...", "go test"},
		{"CGO_ENABLED=0 GOOS=linux go build -o bin/x ./cmd/x", "go build"},
		{"cd web && npm run build", "npm run"},
		{"sudo docker build -t app .", "docker build"},
		{"/usr/local/bin/make", "make"},
		{"make -j4 all", "make"},
		{"pytest tests/test_api.py -k tenant", "pytest"},
		{"cargo Test", "cargo"},
		{"ls -la", ""},
		{"git status --short", ""},
		{"git commit -m 'x'", "git commit"},
		{"cat go.mod | head", ""},
		{"   ", ""},
		{"A=1 B=2", ""},
	} {
		if got := CommandKey(c.in); got != c.want {
			t.Errorf("CommandKey(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
