package digest

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/memory/recall"
	"github.com/deja-dev/deja/memory/store"
)

// workCandidates bounds the rows a work lookup reads before it checks
// each record exactly: the newest matches come first, so a few hundred
// hold any answer worth a line.
const workCandidates = 400

// FileEdits returns the turns of the project's sessions (and only those:
// a file path means something only in its project) that edited path,
// newest first, at most limit, leaving out the session exclude and its
// subagents. path is relative to the project or absolute inside it.
func FileEdits(ctx context.Context, s *store.Store, project, path, exclude string, limit int) ([]ContextItem, error) {
	rel := strings.TrimPrefix(filepath.ToSlash(path), "./")
	if p := filepath.ToSlash(filepath.Clean(project)) + "/"; project != "" && strings.HasPrefix(rel, p) {
		rel = strings.TrimPrefix(rel, p)
	}
	if rel == "" || project == "" {
		return nil, nil
	}
	match := func(files, actions []string, _ []string) bool {
		for i, f := range files {
			f = strings.TrimPrefix(filepath.ToSlash(f), "./")
			if (f == rel || strings.HasSuffix(f, "/"+rel) || strings.HasSuffix(rel, "/"+f)) &&
				i < len(actions) && harness.FileAction(actions[i]) == harness.Edited {
				return true
			}
		}
		return false
	}
	return workTurns(ctx, s, project, "t.files", filepath.Base(rel), exclude, limit, match)
}

// CommandRuns returns the turns of the project's sessions that ran a
// command of the same invocation as command (CommandKey: "go test" for
// "go test ./..."), newest first, at most limit, leaving out the session
// exclude and its subagents. A command whose invocation is too common to
// say anything about (ls, cat, git status: see CommandKey) finds nothing.
func CommandRuns(ctx context.Context, s *store.Store, project, command, exclude string, limit int) ([]ContextItem, error) {
	key := CommandKey(command)
	if key == "" || project == "" {
		return nil, nil
	}
	match := func(_, _ []string, commands []string) bool {
		for _, c := range commands {
			if CommandKey(c) == key {
				return true
			}
		}
		return false
	}
	return workTurns(ctx, s, project, "t.commands", strings.Fields(key)[0], exclude, limit, match)
}

// workTurns reads the project's newest turns whose column holds needle
// and keeps those match accepts.
func workTurns(ctx context.Context, s *store.Store, project, column, needle, exclude string, limit int,
	match func(files, actions, commands []string) bool) ([]ContextItem, error) {
	where, args := recall.Scope{Project: project}.Sql()
	rows, err := s.Read().QueryContext(ctx, `
		SELECT t.session_id, t.turn, t.user, t.assistant, t.files, t.actions, t.commands, s.started, s.path
		FROM turns t JOIN sessions s ON s.id = t.session_id
		WHERE `+where+` AND instr(`+column+`, ?) > 0
		ORDER BY s.started_ns IS NULL, s.started_ns DESC, t.turn DESC
		LIMIT ?`, append(args, needle, workCandidates)...)
	if err != nil {
		return nil, fmt.Errorf("store: reading work records: %w", err)
	}
	defer rows.Close()
	var items []ContextItem
	for rows.Next() {
		var it ContextItem
		var files, actions, commands string
		var started *string
		if err := rows.Scan(&it.SessionID, &it.Turn, &it.User, &it.Assistant, &files, &actions, &commands, &started, &it.History); err != nil {
			return nil, err
		}
		if exclude != "" && (it.SessionID == exclude || strings.HasPrefix(it.SessionID, exclude+"-")) {
			continue
		}
		it.Files, it.Commands = store.SplitLines(files), store.SplitLines(commands)
		if !match(it.Files, store.SplitLines(actions), it.Commands) {
			continue
		}
		it.Started = parseStarted(started)
		items = append(items, it)
		if len(items) == limit {
			break
		}
	}
	return items, rows.Err()
}

// commonCommands are programs every session runs to look around; that
// one ran before says nothing worth an agent's attention.
var commonCommands = map[string]bool{
	"ls": true, "cat": true, "cd": true, "pwd": true, "echo": true, "head": true, "tail": true,
	"grep": true, "rg": true, "find": true, "sed": true, "awk": true, "wc": true, "less": true,
	"tree": true, "which": true, "true": true, "sleep": true, "mkdir": true, "touch": true,
	"git status": true, "git diff": true, "git log": true, "git show": true, "git add": true,
}

// CommandKey is a command's invocation: its program and, when the next
// word is a subcommand rather than a flag, a path or a value, that word
// ("go test", "npm run", "docker build", "make"), after leading
// environment assignments, sudo and a 'cd DIR &&'; "" for an empty
// command or one of the common look-around programs.
func CommandKey(command string) string {
	words := strings.Fields(command)
	for len(words) > 0 {
		w := words[0]
		switch {
		case strings.Contains(w, "=") && !strings.HasPrefix(w, "-"):
			words = words[1:]
		case w == "sudo" || w == "env" || w == "time" || w == "command":
			words = words[1:]
		case w == "cd" && len(words) > 2 && (words[2] == "&&" || words[2] == ";"):
			words = words[3:]
		default:
			goto done
		}
	}
done:
	if len(words) == 0 {
		return ""
	}
	prog := filepath.Base(words[0])
	key := prog
	if len(words) > 1 {
		sub := words[1]
		if sub != "" && !strings.ContainsAny(sub, "-./=$\"'`|&;<>") && sub == strings.ToLower(sub) {
			key += " " + sub
		}
	}
	if commonCommands[key] || commonCommands[prog] {
		return ""
	}
	return key
}
