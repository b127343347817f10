package config

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/viper"
)

// HarnessNames are the harnesses deja can read, each configurable under
// its name: [claude] enabled = false, dirs = ["~/work/.claude/projects"];
// or DEJA_CLAUDE_ENABLED=false, DEJA_CLAUDE_DIRS=dir1:dir2.
var HarnessNames = []string{"aider", "amp", "antigravity", "claude", "cline", "codex", "continue", "copilot", "crush", "cursor", "dsh", "factory", "gemini", "goose", "grok", "hermes", "kimi", "kiro", "opencode", "pi", "qwen", "zed"}

// Harness configures one harness's discovery.
type Harness struct {
	// Enabled switches the harness on; a switched-off harness is neither
	// discovered nor indexed, and its sessions already indexed stay.
	Enabled bool
	// Dirs replace the harness's default places when set (aider: roots
	// searched beside DEJA_AIDER_ROOTS).
	Dirs []string
}

// Harness returns the configuration of the named harness; an unknown name
// is enabled with its default places.
func (c Config) Harness(name string) Harness {
	if h, ok := c.Harnesses[name]; ok {
		return h
	}
	return Harness{Enabled: true}
}

// loadHarnesses reads each harness's keys. dirs is a TOML array, or a
// string of directories separated like PATH (as a variable sets it).
func loadHarnesses(v *viper.Viper) (map[string]Harness, error) {
	out := map[string]Harness{}
	for _, name := range HarnessNames {
		h := Harness{Enabled: v.GetBool(name + ".enabled")}
		switch d := v.Get(name + ".dirs").(type) {
		case string:
			for _, p := range filepath.SplitList(d) {
				if p = strings.TrimSpace(p); p != "" {
					h.Dirs = append(h.Dirs, p)
				}
			}
		case []any:
			for _, p := range d {
				s, ok := p.(string)
				if !ok {
					return nil, fmt.Errorf("config: %s.dirs holds %v: use a list of directory strings", name, p)
				}
				h.Dirs = append(h.Dirs, s)
			}
		case []string:
			h.Dirs = d
		case nil:
		default:
			return nil, fmt.Errorf("config: %s.dirs is %v: use a list of directories", name, d)
		}
		out[name] = h
	}
	return out, nil
}
