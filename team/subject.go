package team

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"strings"
)

// subjectPrefix begins every subject deja publishes on.
const subjectPrefix = "deja"

// token makes s one NATS subject token: s itself when it is made only of
// letters, digits, - and _ (and not too long), otherwise a prefix of its
// letters and a hash of the whole, so distinct values stay distinct and no
// '.', '*', '>' or space can split or widen a subject.
func token(s string) string {
	safe := s != "" && len(s) <= 64
	for _, r := range s {
		if !isSafe(r) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if b.Len() >= 24 {
			break
		}
		if isSafe(r) {
			b.WriteRune(r)
		}
	}
	sum := sha256.Sum256([]byte(s))
	return b.String() + "_" + hex.EncodeToString(sum[:8])
}

func isSafe(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_'
}

// projectToken names a project in subjects by its directory's base name,
// so one project checked out at different paths on different machines is
// one subject (two shared projects of one base name share it too).
func projectToken(project string) string {
	return token(strings.ToLower(filepath.Base(filepath.Clean(project))))
}

// streamName is the team's stream.
func streamName(team string) string { return "DEJA_" + token(team) }

// teamSubjects matches everything the team publishes.
func teamSubjects(team string) string { return subjectPrefix + "." + token(team) + ".>" }

// sessionSubject is where one session's turns and tombstone go:
// deja.TEAM.PROJECT.USER.SESSION. The user token lets an account layout
// allow each member to publish only under their own subjects, and the
// project token lets it grant reading per project.
func sessionSubject(team, project, user, session string) string {
	return strings.Join([]string{subjectPrefix, token(team), projectToken(project), token(user), token(session)}, ".")
}

// projectSubjects matches one project's sessions in the team.
func projectSubjects(team, project string) string {
	return subjectPrefix + "." + token(team) + "." + projectToken(project) + ".>"
}

// sessionSubjectOf splits a session's subject, deja.TEAM.PROJECT.USER.SESSION,
// into its project, user and session tokens; ok is false for a subject
// of another shape or team.
func sessionSubjectOf(team, subject string) (project, user, session string, ok bool) {
	parts := strings.Split(subject, ".")
	if len(parts) != 5 || parts[0] != subjectPrefix || parts[1] != token(team) {
		return "", "", "", false
	}
	return parts[2], parts[3], parts[4], true
}
