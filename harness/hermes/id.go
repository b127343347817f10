package hermes

import (
	"path/filepath"
	"strings"
)

// IDPrefix starts every Hermes session's ID: hermes-<session id> for a
// session of the default home's store, hermes-<profile>.<session id> for
// one of profiles/<profile>/state.db. A profile is a copy of a home
// (`hermes profile create --clone`), so two stores can hold one session
// id; Hermes refuses dots in profile names and writes none in session ids,
// so the dot parts them.
const IDPrefix = Name + "-"

// sessionID is the ID of the session sid of a store of profile ("" for
// the default home).
func sessionID(profile, sid string) string {
	if profile == "" {
		return IDPrefix + sid
	}
	return IDPrefix + profile + "." + sid
}

// splitID returns the profile and Hermes's own session id of an ID, and
// whether it is of the shape sessionID makes.
func splitID(id string) (profile, sid string, ok bool) {
	rest, ok := strings.CutPrefix(id, IDPrefix)
	if !ok {
		return "", "", false
	}
	if p, s, dotted := strings.Cut(rest, "."); dotted {
		profile, rest = p, s
		if !isName(profile, 64) {
			return "", "", false
		}
	}
	return profile, rest, isName(rest, 128)
}

// isName reports 1 to most ASCII letters, digits, '_' and '-', starting
// with a letter or digit: Hermes's session ids ("20260705_112145_f8a75403",
// "cron_7d1d442b1611_20260706_011911") and profile names.
func isName(s string, most int) bool {
	if s == "" || len(s) > most || s[0] == '-' || s[0] == '_' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// profileOf is the profile whose store path is: <root>/profiles/<name>/
// state.db names the profile name, any other store the default home ("").
func profileOf(path string) string {
	home := filepath.Dir(path)
	if filepath.Base(filepath.Dir(home)) != "profiles" {
		return ""
	}
	if name := filepath.Base(home); isName(name, 64) {
		return name
	}
	return ""
}
