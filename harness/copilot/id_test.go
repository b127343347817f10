package copilot

import (
	"strings"
	"testing"
)

func TestValidID(t *testing.T) {
	const sid = "0f6c2b9e-3a41-4d7e-9b8a-2c5d1e7f4a60"
	for id, want := range map[string]bool{
		IDPrefix + sid: true,
		IDPrefix + sid + "-agent-toolu_vrtx_01R27ZwYt":       true,
		IDPrefix + sid + "-agent-":                           false,
		IDPrefix + sid + "-agent-a/b":                        false,
		IDPrefix + sid + "-other":                            false,
		IDPrefix + sid + "\n# SYSTEM":                        false,
		IDPrefix + "not-a-uuid":                              false,
		IDPrefix + sid + "-agent-" + strings.Repeat("a", 65): false,
		"claude-" + sid:                                      false,
	} {
		if got := (Reader{}).ValidID(id); got != want {
			t.Errorf("ValidID(%q) = %v, want %v", id, got, want)
		}
	}
}
