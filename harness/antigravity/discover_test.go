package antigravity

import (
	"crypto/rand"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/harnesstest"
)

// encrypted writes n .pb files of random bytes in dir, as Antigravity and
// Windsurf leave their conversations.
func encrypted(t *testing.T, dir string, n int) {
	for i := range n {
		b := make([]byte, 256)
		_, _ = rand.Read(b)
		harnesstest.WriteFile(t, filepath.Join(dir, strings.Repeat("a", i+1)+".pb"), string(b))
	}
}

const noticeJSON = `{"id":"m","recipient":"c","sender":"system","timestamp":"2026-04-19T04:53:51Z","content":"[Notice] x"}`

// TestDiscoverHome lays ~/.gemini/antigravity out as Antigravity does on
// Linux, macOS and Windows alike (under the home folder, %USERPROFILE% on
// Windows), with the agy CLI's sibling folder and Windsurf's cascade: the
// brain folders are found, the encrypted conversations counted and named
// in warnings.
func TestDiscoverHome(t *testing.T) {
	home := t.TempDir()
	ag := filepath.Join(home, ".gemini", "antigravity")
	a := harnesstest.WriteFile(t, filepath.Join(ag, "brain", "feee38e8-7e95-499f-bc12-62ca950ad77a", generated, messageDir, "m.json"), noticeJSON)
	b := harnesstest.WriteFile(t, filepath.Join(home, ".gemini", "antigravity-cli", "brain", "3f2504e0-4f89-41d3-9a0c-0305e82c3301", generated, "logs", "transcript.jsonl"), "{}\n")
	harnesstest.WriteFile(t, filepath.Join(ag, "brain", "not-a-uuid", generated, messageDir, "m.json"), noticeJSON)
	harnesstest.WriteFile(t, filepath.Join(ag, "brain", "22ba90c2-7018-4975-b135-03e6f979d162", "task.md"), "# an artifact")
	encrypted(t, filepath.Join(ag, "conversations"), 3)
	encrypted(t, filepath.Join(ag, "implicit"), 2)
	encrypted(t, filepath.Join(home, ".codeium", "windsurf", "cascade"), 12)
	d := Discover(harness.DiscoverOptions{Home: home})
	harnesstest.CheckSources(t, d, filepath.Dir(filepath.Dir(filepath.Dir(a))), filepath.Dir(filepath.Dir(filepath.Dir(b))))
	want := []string{
		"3 conversations in " + filepath.Join(ag, "conversations") + " are encrypted; deja cannot read them, only the notices and transcripts of brain/ (1 conversation)",
		"Windsurf: 12 conversations in " + filepath.Join(home, ".codeium", "windsurf", "cascade") + " are encrypted (AES-GCM); deja cannot read them",
	}
	if strings.Join(d.Warnings, "\n") != strings.Join(want, "\n") {
		t.Errorf("warnings\n%q\nwant\n%q", d.Warnings, want)
	}
	if !d.Installed || d.Sources[0].Size == 0 || d.Sources[0].ModTime.IsZero() {
		t.Errorf("installed %v, first source %+v", d.Installed, d.Sources[0])
	}
	// Each place is named as a user looks it up, as other harnesses'
	// are, not "default /home/u/.gemini/antigravity".
	for _, s := range d.Sources {
		if got := s.Reasons[0].String(); got != "~/.gemini/antigravity" && got != "~/.gemini/antigravity-cli" {
			t.Errorf("%s: reason %q", s.Path, got)
		}
	}
}

// TestDiscoverOneEncrypted: one encrypted conversation is told in the
// singular, not "1 conversations ... are encrypted".
func TestDiscoverOneEncrypted(t *testing.T) {
	home := t.TempDir()
	encrypted(t, filepath.Join(home, ".codeium", "windsurf", "cascade"), 1)
	d := Discover(harness.DiscoverOptions{Home: home})
	want := "Windsurf: 1 conversation in " + filepath.Join(home, ".codeium", "windsurf", "cascade") + " is encrypted (AES-GCM); deja cannot read it"
	if len(d.Warnings) != 1 || d.Warnings[0] != want {
		t.Errorf("warnings %q, want %q", d.Warnings, want)
	}
}

// TestDiscoverDirsWindsurfOnly: antigravity.dirs naming a Windsurf
// folder (one holding cascade/) says its conversations are encrypted,
// and not also that the harness "is installed but deja found no
// sessions".
func TestDiscoverDirsWindsurfOnly(t *testing.T) {
	home := t.TempDir()
	ws := filepath.Join(home, ".codeium", "windsurf")
	encrypted(t, filepath.Join(ws, "cascade"), 2)
	d := Discover(harness.DiscoverOptions{Home: home, Dirs: []string{ws}})
	if d.Installed || len(d.Warnings) != 1 || !strings.HasPrefix(d.Warnings[0], "Windsurf: 2 conversations in ") {
		t.Errorf("installed %v, warnings %q", d.Installed, d.Warnings)
	}
}

// TestDiscoverEncryptedOnly: with nothing readable, the warnings say why,
// and Antigravity is not reported as installed with nothing found (which
// would say it again, less well).
func TestDiscoverEncryptedOnly(t *testing.T) {
	home := t.TempDir()
	encrypted(t, filepath.Join(home, ".gemini", "antigravity", "conversations"), 2)
	d := Discover(harness.DiscoverOptions{Home: home})
	if len(d.Sources) > 0 || d.Installed || len(d.Warnings) != 1 || !strings.Contains(d.Warnings[0], "2 conversations") {
		t.Errorf("sources %v, installed %v, warnings %q", d.Sources, d.Installed, d.Warnings)
	}
}

// TestDiscoverWindsurfOnly: Windsurf's store alone is reported, and
// Antigravity is not installed.
func TestDiscoverWindsurfOnly(t *testing.T) {
	home := t.TempDir()
	encrypted(t, filepath.Join(home, ".codeium", "windsurf-next", "cascade"), 1)
	d := Discover(harness.DiscoverOptions{Home: home})
	if d.Installed || len(d.Warnings) != 1 || !strings.HasPrefix(d.Warnings[0], "Windsurf: 1 conversation in ") {
		t.Errorf("installed %v, warnings %q", d.Installed, d.Warnings)
	}
}

// TestDiscoverNothing: no agent, no warning, nothing installed.
func TestDiscoverNothing(t *testing.T) {
	harnesstest.CheckNoAgent(t, Discover(harness.DiscoverOptions{Home: t.TempDir()}))
	if d := Discover(harness.DiscoverOptions{}); len(d.Places) > 0 {
		t.Errorf("without a home, looked at %v", d.Places)
	}
}

// TestDiscoverDirs: antigravity.dirs replace the defaults; each may be an
// Antigravity folder or a brain folder, and ~ is expanded.
func TestDiscoverDirs(t *testing.T) {
	home := t.TempDir()
	a := harnesstest.WriteFile(t, filepath.Join(home, "copy", "brain", "feee38e8-7e95-499f-bc12-62ca950ad77a", generated, messageDir, "m.json"), noticeJSON)
	b := harnesstest.WriteFile(t, filepath.Join(home, "brains", "3f2504e0-4f89-41d3-9a0c-0305e82c3301", generated, messageDir, "m.json"), noticeJSON)
	harnesstest.WriteFile(t, filepath.Join(home, ".gemini", "antigravity", "brain", "22ba90c2-7018-4975-b135-03e6f979d162", generated, messageDir, "m.json"), noticeJSON)
	d := Discover(harness.DiscoverOptions{Home: home, Dirs: []string{"~/copy", filepath.Join(home, "brains"), filepath.Join(home, "missing")}})
	harnesstest.CheckSources(t, d, filepath.Dir(filepath.Dir(filepath.Dir(a))), filepath.Dir(filepath.Dir(filepath.Dir(b))))
	if got := d.Sources[0].Reasons[0].String(); got != "antigravity.dirs" {
		t.Errorf("reason %q", got)
	}
	if len(d.Places) != 3 || d.Places[2].Exists {
		t.Errorf("places %+v", d.Places)
	}
}
