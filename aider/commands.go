package aider

import (
	"sort"
	"strings"
)

// commandNames are aider's in-chat commands (commands.py, v0.86), plus names
// older versions had (/read, /clipboard, /add-clipboard-image). Older names
// only make more abbreviations ambiguous; an ambiguous command never reached
// the model either, so the outcome — not a message — is the same.
// The list is kept sorted for the binary search in resolveCommand.
var commandNames = []string{
	"add", "add-clipboard-image", "architect", "ask", "chat-mode", "clear",
	"clipboard", "code", "commit", "context", "copy", "copy-context", "diff",
	"drop", "edit", "editor", "editor-model", "exit", "git", "help", "lint",
	"load", "ls", "map", "map-refresh", "model", "models", "multiline-mode",
	"ok", "paste", "quit", "read", "read-only", "reasoning-effort", "report",
	"reset", "run", "save", "settings", "test", "think-tokens", "tokens",
	"undo", "voice", "weak-model", "web",
}

// resolveCommand matches the word after "/" as aider's Commands.run does,
// case-sensitively: an exact name wins, else the unique name it is a prefix
// of; "/" alone is a prefix of every name, so ambiguous. It reports
// ok=false for a word that names no command (so "/usr/bin/x is broken" stays
// a message) and ambiguous=true for a prefix of several names (aider then
// answers "Ambiguous command" and runs nothing).
func resolveCommand(word string) (name string, ambiguous, ok bool) {
	i := sort.SearchStrings(commandNames, word)
	if i < len(commandNames) && commandNames[i] == word {
		return word, false, true
	}
	var match string
	n := 0
	for j := i; j < len(commandNames) && strings.HasPrefix(commandNames[j], word); j++ {
		match = commandNames[j]
		n++
	}
	switch {
	case n == 1:
		return match, false, true
	case n > 1:
		return "", true, true
	}
	return "", false, false
}
