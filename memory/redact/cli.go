package redact

import "strings"

// stdinCredentials finds passwords a command line hands to another
// command on its standard input: echo pw | sudo -S, printf '%s\n' pw |
// docker login --password-stdin, echo user:pw | chpasswd, sudo -S <<< pw;
// and passwords given as a positional word of a command that takes one
// (rabbitmqctl add_user u pw, net user u pw /add).
func stdinCredentials(s string) []edit {
	var edits []edit
	var words []shellWord
	var done map[int]bool
	for _, needle := range [...]string{"echo", "printf", "<<<", "rabbitmqctl ", "net user "} {
		for i := 0; ; {
			k := strings.Index(s[i:], needle)
			if k < 0 {
				break
			}
			start := strings.LastIndexByte(s[:i+k], '\n') + 1
			if needle[0] == 'e' || needle[0] == 'p' {
				if i+k > start && isQuote(s[i+k-1]) {
					// A command quoted in a message or a warning ("run
					// 'echo pw | sudo -S …'"): read from the command, or
					// the quote would make the line one word.
					start = i + k
				}
			}
			end := logicalLineEnd(s, i+k)
			i = end
			if done[start] {
				continue
			}
			if done == nil {
				done = map[int]bool{}
			}
			done[start] = true
			if line := s[start:end]; needle[0] != 'e' && needle[0] != 'p' || strings.Contains(line, "|") && readsStdin(line) {
				words = shellWords(words[:0], s, start, end)
				edits = append(edits, pipelineCredentials(s, words)...)
			}
		}
	}
	return sortEdits(edits)
}

// pipelineCredentials looks at one command line's commands in turn.
func pipelineCredentials(s string, words []shellWord) []edit {
	var edits []edit
	var prev []shellWord
	prevPiped := false
	for i := 0; i < len(words); {
		j := i
		for j < len(words) && !words[j].sep {
			j++
		}
		cmd := words[i:j]
		piped := j < len(words) && s[words[j].start] == '|' && (j+1 >= len(words) || s[words[j+1].start] != '|')
		if prevPiped && readsSecretFromStdin(s, cmd) {
			edits = append(edits, echoedValues(s, prev, isChpasswd(s, cmd))...)
		}
		edits = append(edits, hereString(s, cmd)...)
		edits = append(edits, positionalPassword(s, cmd)...)
		prev, prevPiped = cmd, piped
		i = j + 1
	}
	return edits
}

func wordText(s string, w shellWord) string { return s[w.start:w.end] }

// readsStdin is readsSecretFromStdin's first look, at a line's text.
func readsStdin(line string) bool {
	return strings.Contains(line, "sudo") || strings.Contains(line, "-stdin") || strings.Contains(line, "chpasswd")
}

// readsSecretFromStdin reports a command that reads a password from its
// standard input: sudo -S, a login with --password-stdin, chpasswd,
// passwd --stdin.
func readsSecretFromStdin(s string, cmd []shellWord) bool {
	if len(cmd) == 0 {
		return false
	}
	sudo := false
	for _, w := range cmd {
		switch t := wordText(s, w); {
		case t == "--password-stdin", t == "--stdin", commandName(s, w) == "chpasswd":
			return true
		case commandName(s, w) == "sudo":
			sudo = true
		case sudo && strings.HasPrefix(t, "-") && !strings.HasPrefix(t, "--") && strings.Contains(t, "S"):
			return true
		}
	}
	return false
}

func isChpasswd(s string, cmd []shellWord) bool {
	for _, w := range cmd {
		if commandName(s, w) == "chpasswd" {
			return true
		}
	}
	return false
}

// echoedValues returns the words echo or printf writes; printf's format
// (the first word, holding a %) is not one. chpasswd reads user:password,
// of which only the password goes.
func echoedValues(s string, cmd []shellWord, userPass bool) []edit {
	// The command may follow words of prose on its line ("run: echo …").
	for len(cmd) > 0 && commandName(s, cmd[0]) != "echo" && commandName(s, cmd[0]) != "printf" {
		cmd = cmd[1:]
	}
	if len(cmd) < 2 {
		return nil
	}
	name := commandName(s, cmd[0])
	var edits []edit
	for k, w := range cmd[1:] {
		t := wordText(s, w)
		if strings.HasPrefix(t, "-") || name == "printf" && k == 0 && strings.Contains(t, "%") {
			continue
		}
		start, end := unquote(s, w.start, w.end)
		if userPass {
			c := strings.IndexByte(s[start:end], ':')
			if c < 0 {
				continue
			}
			start += c + 1
		}
		edits = appendValue(edits, s, start, end, s[start:end])
	}
	return edits
}

// hereString finds sudo -S <<< pw.
func hereString(s string, cmd []shellWord) []edit {
	if !readsSecretFromStdin(s, cmd) {
		return nil
	}
	for k, w := range cmd {
		t := wordText(s, w)
		switch {
		case t == "<<<" && k+1 < len(cmd):
			return appendWord(nil, s, cmd[k+1], 0)
		case strings.HasPrefix(t, "<<<") && len(t) > 3:
			return appendWord(nil, s, w, 3)
		}
	}
	return nil
}

// positionalCommands name commands whose password is a positional word:
// the word at index after the subcommand.
var positionalCommands = []struct {
	name, sub string
	index     int
}{
	{"rabbitmqctl", "add_user", 2}, {"rabbitmqctl", "change_password", 2},
	{"net", "user", 2},
}

func positionalPassword(s string, cmd []shellWord) []edit {
	for at := 0; at+1 < len(cmd); at++ {
		name, sub := commandName(s, cmd[at]), wordText(s, cmd[at+1])
		for _, pc := range positionalCommands {
			if pc.name != name || pc.sub != sub {
				continue
			}
			if k := at + 1 + pc.index; k < len(cmd) && !strings.HasPrefix(wordText(s, cmd[k]), "/") {
				return appendWord(nil, s, cmd[k], 0)
			}
		}
	}
	return nil
}

// commandName is a command word without its directory.
func commandName(s string, w shellWord) string {
	name := wordText(s, w)
	return name[strings.LastIndexByte(name, '/')+1:]
}
