package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/deja-dev/deja/memory/digest"
)

// kind is the moment a hook fires, as 'deja hook' tells them apart.
type kind int

const (
	kindPrompt kind = iota
	kindStart
	kindTool
	kindCompact
	kinds
)

func (k kind) String() string {
	return [...]string{"prompt", "session start", "pre-tool", "compaction"}[k]
}

// defaultBudget is 'deja hook's --max-tokens for the kind when none is
// given (cmd/deja/hook_work.go).
func (k kind) defaultBudget() int {
	switch k {
	case kindPrompt:
		return 1500
	case kindTool:
		return 150
	default:
		return 600
	}
}

// A hookCall is one hook Claude Code would fire during a held-out session.
type hookCall struct {
	kind kind
	// related: the session's project has sessions in the indexed half.
	related bool
	project string
	input   map[string]string
	// toolInput is a pre-tool call's tool_input.
	toolInput map[string]string
	// files and commands are what the session touched from this call on.
	files, commands []string
}

// caps bound the replay so that it runs in minutes on two cores.
type caps struct {
	sessionsPerProject, promptsPerSession, toolsPerSession int
}

// heldOut is what the replay knows of a split: the sessions replayed, the
// projects that have a past in the indexed half, the calls.
type heldOut struct {
	sessions, related, unrelated, capped int
	calls                                []hookCall
}

// plan lays out the hooks Claude Code would fire for each session of the
// half that is not indexed: a session start, each prompt, a pre-tool hook
// for each file edit and command, and a compaction at the end. Subagents
// fire no hooks of their own, and a session with no prompt did nothing to
// replay.
func plan(sessions []corpusSession, indexed int, c caps) heldOut {
	past := map[string]bool{}
	for _, s := range sessions {
		if s.Half == indexed {
			past[s.Project] = true
		}
	}
	var held []corpusSession
	for _, s := range sessions {
		if s.Half != indexed && !s.Subagent && len(s.Prompts) > 0 {
			held = append(held, s)
		}
	}
	// A fixed order that does not follow time or name, so a cap keeps an
	// even sample of a large project's sessions.
	slices.SortFunc(held, func(a, b corpusSession) int {
		return strings.Compare(fmt.Sprintf("%08x%s", hash(a.Key), a.Key), fmt.Sprintf("%08x%s", hash(b.Key), b.Key))
	})
	var h heldOut
	perProject := map[string]int{}
	for n, s := range held {
		if perProject[s.Project] == c.sessionsPerProject {
			h.capped++
			continue
		}
		perProject[s.Project]++
		h.sessions++
		related := past[s.Project]
		if related {
			h.related++
		} else {
			h.unrelated++
		}
		id := fmt.Sprintf("bench-%d", n)
		base := func(event string) map[string]string {
			return map[string]string{"session_id": id, "transcript_path": "", "cwd": s.Project,
				"hook_event_name": event, "permission_mode": "default"}
		}
		files, commands := touched(s.Records, -1)
		start := base("SessionStart")
		start["source"] = "startup"
		h.calls = append(h.calls, hookCall{kind: kindStart, related: related, project: s.Project, input: start, files: files, commands: commands})
		for i, p := range s.Prompts {
			if i == c.promptsPerSession {
				break
			}
			in := base("UserPromptSubmit")
			in["prompt"] = p.Text
			files, commands := touched(s.Records, p.Turn)
			h.calls = append(h.calls, hookCall{kind: kindPrompt, related: related, project: s.Project, input: in, files: files, commands: commands})
		}
		seen := map[string]bool{}
		tools := 0
		for _, r := range s.Records {
			if tools == c.toolsPerSession {
				break
			}
			if seen[r.Kind+r.Value] || r.Kind == "file" && r.Action != "edited" {
				continue
			}
			seen[r.Kind+r.Value] = true
			in := base("PreToolUse")
			var ti map[string]string
			if r.Kind == "file" {
				in["tool_name"], ti = "Edit", map[string]string{"file_path": absIn(s.Project, r.Value)}
			} else {
				in["tool_name"], ti = "Bash", map[string]string{"command": r.Value}
			}
			h.calls = append(h.calls, hookCall{kind: kindTool, related: related, project: s.Project, input: in, toolInput: ti})
			tools++
		}
		// The compaction hook reads the session's own transcript: it
		// fires with the agent's own session ID, deja's without its
		// harness prefix.
		compact := base("SessionStart")
		compact["source"] = "compact"
		compact["transcript_path"] = s.History
		_, compact["session_id"], _ = strings.Cut(s.ID, "-")
		h.calls = append(h.calls, hookCall{kind: kindCompact, related: true, project: s.Project, input: compact, files: files, commands: commands})
	}
	return h
}

// touched is what a session read, edited or ran from turn on (all of it
// for turn -1, which also holds what was done before the first prompt,
// as aider's /add).
func touched(records []record, turn int) (files, commands []string) {
	for _, r := range records {
		if r.Turn < turn {
			continue
		}
		switch r.Kind {
		case "file":
			files = append(files, r.Value)
		case "command":
			commands = append(commands, r.Value)
		}
	}
	return files, commands
}

// absIn is path as an absolute path in project, as Claude Code's Edit
// names it.
func absIn(project, path string) string {
	if filepath.IsAbs(path) || strings.Contains(path, `:\`) {
		return path
	}
	return filepath.Join(project, path)
}

// An answer is what one hook call printed and how long it took.
type answer struct {
	tokens int
	took   time.Duration
	// text is the context as the model reads it: the JSON answer's
	// additionalContext, the plain answer as it is.
	text string
}

// fire runs one 'deja hook claude-code' as Claude Code does, with budget
// as --max-tokens when it is not the kind's default.
func fire(bin string, env []string, c hookCall, budget int) (answer, error) {
	input := map[string]any{}
	for k, v := range c.input {
		input[k] = v
	}
	if c.toolInput != nil {
		input["tool_input"] = c.toolInput
	}
	in, _ := json.Marshal(input)
	args := []string{"hook", "claude-code"}
	if budget != c.kind.defaultBudget() {
		args = append(args, "--max-tokens", strconv.Itoa(budget))
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	cmd.Stdin = bytes.NewReader(in)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	a := answer{took: time.Since(start), tokens: out.Len() / 4, text: out.String()}
	if err != nil {
		return a, fmt.Errorf("deja hook (%s): %v\n%s", c.kind, err, errb.String())
	}
	if s := strings.TrimSpace(errb.String()); s != "" {
		return a, fmt.Errorf("deja hook (%s) said: %s", c.kind, s)
	}
	if strings.HasPrefix(a.text, "{") {
		var v struct {
			HookSpecificOutput struct {
				AdditionalContext string `json:"additionalContext"`
			} `json:"hookSpecificOutput"`
		}
		if err := json.Unmarshal(out.Bytes(), &v); err != nil {
			return a, fmt.Errorf("deja hook (%s) printed no hook JSON: %v\n%s", c.kind, err, a.text)
		}
		a.text = v.HookSpecificOutput.AdditionalContext
	}
	return a, nil
}

// fireAll runs the calls of the kinds in budgets, in order, each with the
// kind's budget; the answers line up with calls (zero for a kind left out).
func fireAll(bin string, env []string, calls []hookCall, budgets map[kind]int) ([]answer, error) {
	answers := make([]answer, len(calls))
	for i, c := range calls {
		b, ok := budgets[c.kind]
		if !ok {
			continue
		}
		a, err := fire(bin, env, c, b)
		if err != nil {
			return nil, err
		}
		answers[i] = a
	}
	return answers, nil
}

// names says whether text names one of the files (as the session named
// it, or relative to its project) or one of the commands' invocations
// ('go test' for 'go test ./...'; look-around commands such as ls and git
// status have none and never count).
func names(text, project string, files, commands []string) (file, command bool) {
	for _, f := range files {
		f = filepath.ToSlash(f)
		rel := f
		if p := filepath.ToSlash(project) + "/"; strings.HasPrefix(f, p) {
			rel = strings.TrimPrefix(f, p)
		}
		rel = strings.TrimPrefix(rel, "./")
		if rel != "" && (containsWord(text, rel) || containsWord(text, f)) {
			file = true
			break
		}
	}
	for _, c := range commands {
		if key := digest.CommandKey(c); key != "" && containsWord(text, key) {
			command = true
			break
		}
	}
	return file, command
}

// containsWord says whether s holds w with no letter, digit or path
// character running on at either end, so "main.go" is not found in
// "domain.gopher" nor "go test" in "cargo testing".
func containsWord(s, w string) bool {
	inWord := func(b byte) bool {
		return b == '_' || b == '-' || b == '.' || b == '/' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
	}
	for from := 0; ; {
		i := strings.Index(s[from:], w)
		if i < 0 {
			return false
		}
		i += from
		end := i + len(w)
		// A path may end a sentence: "edited main.go." names main.go.
		after := end == len(s) || !inWord(s[end]) || s[end] == '.' && (end+1 == len(s) || !inWord(s[end+1]))
		if (i == 0 || !inWord(s[i-1]) || s[i-1] == '/' && strings.Contains(w, "/")) && after {
			return true
		}
		from = i + 1
	}
}

// indexedProjects is the project of each session in the store, by ID.
func indexedProjects(bin string, env []string) (map[string]string, error) {
	cmd := exec.Command(bin, "sessions", "--json", "--all", "--include-subagents", "--limit", "0")
	cmd.Env = env
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("deja sessions: %v", err)
	}
	var v struct {
		Sessions []struct {
			ID      string `json:"id"`
			Project string `json:"project"`
		} `json:"sessions"`
	}
	if err := json.Unmarshal(out, &v); err != nil {
		return nil, fmt.Errorf("deja sessions --json: %w", err)
	}
	m := map[string]string{}
	for _, s := range v.Sessions {
		m[s.ID] = s.Project
	}
	return m, nil
}

// sameProject says whether every past turn text refers to (SESSION/TURN)
// is a session of project, and that it refers to at least one.
func sameProject(text, project string, projects map[string]string) bool {
	n := 0
	for id, p := range projects {
		if strings.Contains(text, id+"/") {
			if p != project {
				return false
			}
			n++
		}
	}
	return n > 0
}
