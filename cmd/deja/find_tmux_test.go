package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const findHistory = `
# aider chat started at 2026-07-17 09:00:00

#### Why does the tenant filter drop rows?  

The tenant predicate compared IDs as strings. Fixed in internal/db/query.go.

> Applied edit to internal/db/query.go  

#### The tenant billing totals round wrong  

Billing now rounds to the cent per currency.

> Applied edit to billing/round.go  

# aider chat started at 2026-07-18 14:30:00

#### Why is the Docker image so big?  

A multi-stage build cuts it from 1.2 GB to 90 MB.

> Applied edit to Dockerfile  
`

// tmuxPane is a shell in an 80×24 tmux pane on a server of its own.
type tmuxPane struct {
	t      *testing.T
	socket string
}

func (p tmuxPane) tmux(args ...string) string {
	p.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-S", p.socket}, args...)...).CombinedOutput()
	if err != nil {
		p.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func (p tmuxPane) screen() string { return p.tmux("capture-pane", "-p", "-t", "find") }

// waitFor polls the screen until ok holds; the deadline only bounds a
// failure, it measures nothing.
func (p tmuxPane) waitFor(what string, ok func(string) bool) string {
	p.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		s := p.screen()
		if ok(s) {
			return s
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("the screen never showed %s:\n%s", what, s)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestFindInTmux drives the real binary on a terminal: typing narrows the
// list, Enter prints the chosen turn through "$(deja find)", and quitting
// gives the shell back its screen.
func TestFindInTmux(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed (.ci/run installs it): the interactive search is tested through tui's model only")
	}
	if testing.Short() {
		t.Skip("builds the binary and drives it in tmux")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "deja")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	shop := filepath.Join(dir, "shop")
	if err := os.MkdirAll(filepath.Join(dir, "home"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(shop, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(shop, ".aider.chat.history.md"), []byte(findHistory), 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{
		"HOME=" + filepath.Join(dir, "home"),
		"XDG_CONFIG_HOME=" + filepath.Join(dir, "config"),
		"XDG_DATA_HOME=" + filepath.Join(dir, "data"),
		"DEJA_EMBED_PROVIDER=builtin",
		"DEJA_SERVE_AUTOSTART=false",
		"PATH=" + dir + ":" + os.Getenv("PATH"),
		"TERM=xterm-256color",
		"PS1=$ ",
		"PAGER=less",
		"LC_ALL=C.UTF-8",
	}
	idx := exec.Command(bin, "index", shop)
	idx.Env = env
	if out, err := idx.CombinedOutput(); err != nil {
		t.Fatalf("deja index: %v\n%s", err, out)
	}

	p := tmuxPane{t: t, socket: filepath.Join(dir, "tmux.sock")}
	shell := "env -i " + strings.Join(quoteAll(env), " ") + " sh"
	p.tmux("-f", "/dev/null", "new-session", "-d", "-x", "80", "-y", "24", "-s", "find", shell)
	t.Cleanup(func() { exec.Command("tmux", "-S", p.socket, "kill-server").Run() })
	// The server takes the clipboard sequences find writes (ctrl-y).
	p.tmux("set-option", "-s", "set-clipboard", "on")
	p.tmux("send-keys", "-t", "find", "-l", "clear; cd '"+shop+"'; echo before-find")
	p.tmux("send-keys", "-t", "find", "Enter")
	p.waitFor("the shell", func(s string) bool { return strings.HasPrefix(s, "before-find\n") })

	p.tmux("send-keys", "-t", "find", "-l", `out=$(deja find --mode keyword); echo "picked=$out rc=$?"`)
	p.tmux("send-keys", "-t", "find", "Enter")
	p.waitFor("the search screen", func(s string) bool { return strings.Contains(s, "esc quit") && strings.Contains(s, "[keyword]") })

	p.tmux("send-keys", "-t", "find", "-l", "tenant")
	s := p.waitFor("two tenant turns", func(s string) bool { return strings.Contains(s, "2 turns") })
	for _, want := range []string{"Why does the tenant filter drop rows?", "The tenant billing totals round", "files: internal/db/query.go", "you: Why does the tenant filter"} {
		if !strings.Contains(s, want) {
			t.Fatalf("the screen lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "Docker") {
		t.Fatalf("a turn without the word is listed:\n%s", s)
	}
	checkSize(t, s)

	// Resized to 120×40 and back to 80×24, the screen is redrawn to fit.
	p.tmux("resize-window", "-t", "find", "-x", "120", "-y", "40")
	p.waitFor("the screen at 120 columns", func(s string) bool {
		lines := strings.Split(s, "\n")
		return len(lines) >= 40 && strings.HasSuffix(strings.TrimRight(lines[0], " "), "[keyword]") && len(strings.TrimRight(lines[0], " ")) > 100
	})
	p.tmux("resize-window", "-t", "find", "-x", "80", "-y", "24")
	s = p.waitFor("the screen at 80 columns again", func(s string) bool {
		first := strings.TrimRight(strings.SplitN(s, "\n", 2)[0], " ")
		return strings.HasSuffix(first, "[keyword]") && len(first) <= 80 && strings.Contains(s, "esc quit")
	})
	checkSize(t, s)
	for _, want := range []string{"Why does the tenant filter drop rows?", "files: internal/db/query.go", "2 turns"} {
		if !strings.Contains(s, want) {
			t.Fatalf("after the resize the screen lacks %q:\n%s", want, s)
		}
	}

	// alt-p narrows to the project find started in, alt-h to one agent;
	// the status line says so. Both turns are from here, by aider.
	p.tmux("send-keys", "-t", "find", "M-p")
	p.waitFor("the project filter", func(s string) bool {
		return strings.Contains(s, "2 turns · keyword") && strings.Contains(s, "· project shop")
	})
	p.tmux("send-keys", "-t", "find", "M-h")
	p.waitFor("the agent filter", func(s string) bool { return strings.Contains(s, "· project shop · aider") })
	p.tmux("send-keys", "-t", "find", "M-t")
	p.waitFor("the time filter", func(s string) bool { return strings.Contains(s, "nothing found") && strings.Contains(s, "· last day") })
	for range 4 { // week, 30 days, year, any time
		p.tmux("send-keys", "-t", "find", "M-t")
	}
	p.waitFor("the time filter off", func(s string) bool { return strings.Contains(s, "2 turns · keyword") && !strings.Contains(s, "last ") })

	// ctrl-y copies the selected turn's ID through the terminal.
	p.tmux("send-keys", "-t", "find", "C-y")
	s = p.waitFor("the copy", func(s string) bool { return strings.Contains(s, "copied aider-") })
	buf := strings.TrimSpace(p.tmux("show-buffer"))
	if !strings.HasPrefix(buf, "aider-") || !strings.HasSuffix(buf, "-20260717T090000/0") || !strings.Contains(s, "copied "+buf) {
		t.Fatalf("ctrl-y put %q on the clipboard:\n%s", buf, s)
	}

	// Replace the query: the list follows it.
	p.tmux("send-keys", "-t", "find", "C-u")
	p.tmux("send-keys", "-t", "find", "-l", "docker")
	s = p.waitFor("the Docker turn alone", func(s string) bool { return strings.Contains(s, "1 turn ·") })
	if !strings.Contains(s, "Why is the Docker image so big?") || strings.Contains(s, "tenant") {
		t.Fatalf("after 'docker' the list is wrong:\n%s", s)
	}

	// Tab switches the mode and queries again.
	p.tmux("send-keys", "-t", "find", "Tab")
	p.waitFor("the mode after keyword", func(s string) bool { return strings.Contains(s, "[hybrid]") })

	// ctrl-o pages the whole session; leaving the pager returns to the search.
	if _, err := exec.LookPath("less"); err == nil {
		p.tmux("send-keys", "-t", "find", "C-o")
		p.waitFor("the session in the pager", func(s string) bool {
			return strings.HasPrefix(strings.TrimLeft(s, "\n"), "# aider-") && strings.Contains(s, "20260718T143000") && !strings.Contains(s, "esc quit")
		})
		p.tmux("send-keys", "-t", "find", "q")
		p.waitFor("the search after the pager", func(s string) bool { return strings.Contains(s, "esc quit") && strings.Contains(s, "1 turn ·") })
	} else {
		t.Log("less is not installed: the pager key is not driven")
	}

	p.tmux("send-keys", "-t", "find", "Enter")
	s = p.waitFor("the shell again", func(s string) bool { return strings.Contains(s, "\npicked=") })
	if !strings.Contains(s, "picked=aider-") || !strings.Contains(s, "-20260718T143000/0 rc=0") {
		t.Fatalf("Enter did not print the chosen turn as SESSION/TURN:\n%s", s)
	}
	// The alternate screen is gone: the shell's earlier line is back and
	// none of the search screen is left.
	if !strings.Contains(s, "before-find") || strings.Contains(s, "esc quit") {
		t.Fatalf("quitting did not restore the shell's screen:\n%s", s)
	}

	// Esc quits without choosing, with 130.
	p.tmux("send-keys", "-t", "find", "-l", `deja find tenant; echo "rc=$?"`)
	p.tmux("send-keys", "-t", "find", "Enter")
	p.waitFor("the search screen", func(s string) bool { return strings.Contains(s, "esc quit") })
	p.tmux("send-keys", "-t", "find", "Escape")
	s = p.waitFor("the shell after esc", func(s string) bool { return strings.Contains(s, "\nrc=130") })
	if strings.Contains(s, "esc quit") {
		t.Fatalf("esc left the search screen drawn:\n%s", s)
	}
}

func checkSize(t *testing.T, s string) {
	t.Helper()
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > 24 {
		t.Fatalf("the screen has %d lines at 80×24", len(lines))
	}
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = fmt.Sprintf("'%s'", strings.ReplaceAll(s, "'", `'\''`))
	}
	return out
}
