package harness

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/deja-dev/deja/internal/jsonscan"
)

// A prompt history is the file an agent keeps beside its sessions of what
// the user typed, for its up-arrow: Claude Code's and Codex's
// history.jsonl, the cursor-agent CLI's prompt_history.json, Copilot CLI's
// command-history-state.json. It outlives the sessions (Claude Code
// deletes transcripts after cleanupPeriodDays and keeps history.jsonl), so
// it holds prompts whose sessions are gone. Each agent's reader reads its
// own, and hands each prompt over as a session of one question with no
// answer (PromptSessions); the indexer stores it only when no session of
// the agent holds the prompt already (see Session.PromptOnly).

// Prompt is one entry of a prompt history.
type Prompt struct {
	Text string
	// Session is the ID, in its harness's shape ("claude-<uuid>"), of the
	// session the prompt was typed in; empty when the file names none.
	Session string
	// Project is the directory it was typed in, where the file says.
	Project string
	// Time is when it was typed, where the file says.
	Time time.Time
	// Line is the 1-based line, or entry, it was read from; Offset and
	// End its bytes in the file.
	Line        int
	Offset, End int64
}

// promptInfix names a session made of one prompt: <harness>-prompt-<hash>.
const promptInfix = "-prompt-"

// NormalizePrompt is a prompt as prompts are compared: its runs of white
// space made one space, none at either end.
func NormalizePrompt(text string) string { return strings.Join(strings.Fields(text), " ") }

// PromptID is the ID of the session holding a prompt of the named harness:
// <name>-prompt-<16 hex digits> of a hash of the prompt's session (its
// project instead, when it names no session) and its text normalized. The
// same prompt typed again in the same session, or in the same project
// where no session is named, has the same ID: it is one turn, not one a
// retyping ("continue").
func PromptID(name string, p Prompt) string {
	where := "session\x00" + p.Session
	if p.Session == "" {
		where = "project\x00" + p.Project
	}
	sum := sha256.Sum256([]byte(where + "\x00" + NormalizePrompt(p.Text)))
	return name + promptInfix + hex.EncodeToString(sum[:8])
}

// IsPromptID reports an ID of PromptID's shape for the named harness.
func IsPromptID(name, id string) bool {
	rest, ok := strings.CutPrefix(id, name+promptInfix)
	return ok && IsHex(rest, 16)
}

// PromptSessions makes each prompt of the named harness a session of one
// user message, PromptOnly, linked to the session it names by Parent. A
// prompt left empty, a slash command ("/clear", "/plugin install x":
// nothing to recall), one whose ID opts.Reserved reports and one
// whose ID an earlier prompt took are skipped; the first of a prompt
// typed again is kept, with its time.
func PromptSessions(name string, prompts []Prompt, opts ParseOptions) []Session {
	var out []Session
	taken := map[string]bool{}
	ordinal := max(opts.FirstOrdinal, 1)
	for _, p := range prompts {
		text := strings.TrimSpace(p.Text)
		if text == "" || isSlashCommand(text) {
			continue
		}
		id := PromptID(name, p)
		if taken[id] || (opts.Reserved != nil && opts.Reserved(id)) {
			continue
		}
		taken[id] = true
		out = append(out, Session{
			ID:         id,
			Ordinal:    ordinal,
			Started:    p.Time,
			Offset:     p.Offset,
			End:        p.End,
			Project:    p.Project,
			Parent:     p.Session,
			PromptOnly: true,
			Messages:   []Message{{Role: User, Text: text, Line: p.Line, Time: p.Time}},
		})
		ordinal++
	}
	return out
}

// isSlashCommand reports a prompt that starts with a slash command
// ("/clear", "/model", "/plugin install x"): an order to the agent, not a
// question. A path ("/usr/bin/env fails") is none.
func isSlashCommand(text string) bool {
	cmd, _, _ := strings.Cut(strings.Fields(text)[0]+" ", " ")
	if len(cmd) < 2 || cmd[0] != '/' {
		return false
	}
	for i := 1; i < len(cmd); i++ {
		if c := cmd[i]; !(isAlnum(c) || c == '-' || c == '_' || c == ':') {
			return false
		}
	}
	return true
}

// ParsePromptLines reads a JSONL prompt history of the named harness,
// decode making each line a Prompt: false for a line that is not one,
// counted in the warnings as kind says. A partial last line that decode
// refuses is not there yet (see FileReader). Offsets count from
// opts.Offset.
func ParsePromptLines(name string, data []byte, opts ParseOptions, kind string, decode func(line []byte) (Prompt, bool)) *History {
	h := &History{Path: opts.Path}
	var warn Warnings
	var prompts []Prompt
	for l := NewLines(data); l.Next(); {
		if len(bytes.TrimSpace(l.Line)) == 0 {
			continue
		}
		p, ok := decode(l.Line)
		if !ok {
			if !l.Partial {
				warn.Add(kind, l.Number)
			}
			continue
		}
		p.Line, p.Offset, p.End = l.Number, opts.Offset+int64(l.Offset), opts.Offset+int64(l.End())
		prompts = append(prompts, p)
	}
	h.Sessions = PromptSessions(name, prompts, opts)
	h.Warnings = warn.List()
	return h
}

// AddPromptHistory adds the prompt history at path when it is there and
// holds something: an empty one is no agent's yet (Claude Code's and
// Codex's have the same name, and the first line tells them apart).
// A default place's reason names the file ("~/.cursor/prompt_history.json"),
// not the folder it is in ("~/.cursor"), as each agent's default reason
// for its prompt history reads in 'deja sources'.
func (f *Finder) AddPromptHistory(path string, r Reason) {
	if base := filepath.Base(path); r.Kind == "default" && r.Name != "" && filepath.Base(r.Name) != base {
		r.Name = strings.TrimSuffix(r.Name, "/") + "/" + base
	}
	if info, err := os.Stat(path); err == nil && info.Mode().IsRegular() && info.Size() > 0 {
		f.Add(path, r)
	}
}

// promptHistoryNames are the file names of the agents' prompt histories.
var promptHistoryNames = []string{"history.jsonl", "prompt_history.json", "command-history-state.json"}

// IsPromptHistoryName reports a path named as an agent's prompt history
// is: the indexer reads those after the sessions whose prompts they
// repeat.
func IsPromptHistoryName(path string) bool {
	return slices.Contains(promptHistoryNames, filepath.Base(path))
}

// ParsePromptList reads a prompt history that is a JSON array of prompt
// strings, rewritten whole: the document itself when key is empty
// (cursor-agent's prompt_history.json), else the array under that key of
// the document's object (Copilot CLI's commandHistory). Every session
// spans the file. An entry that is no string is counted and skipped; a
// file that is no such list is a warning, what was read of it kept.
func ParsePromptList(name string, data []byte, key string, opts ParseOptions) *History {
	h := &History{Path: opts.Path}
	sc := jsonscan.New(data)
	var prompts []Prompt
	var warn Warnings
	end := opts.Offset + int64(len(data))
	found := false
	list := func() {
		found = sc.Kind() == '['
		sc.Array(func() {
			n := len(prompts) + 1
			if sc.Kind() != '"' {
				warn.Add("not a string", n)
				sc.Skip()
				prompts = append(prompts, Prompt{})
				return
			}
			prompts = append(prompts, Prompt{Text: sc.String(), Line: n, Offset: opts.Offset, End: end})
		})
	}
	if key == "" {
		list()
	} else {
		sc.Object(func(k []byte) bool {
			if string(k) != key {
				return false
			}
			list()
			return true
		})
	}
	h.Sessions = PromptSessions(name, prompts, opts)
	h.Warnings = warn.List()
	if !found || sc.Err() != nil {
		h.Warnings = append(h.Warnings, "not a JSON list of prompts where one was expected; what came before was read")
	}
	return h
}

// placeholderKinds open the placeholders Claude Code leaves in its prompt
// history for what it keeps elsewhere or not at all: "[Pasted text #2 +40
// lines]" and "[...Truncated text #3 +200 lines]" (a paste, its text in
// pastedContents or paste-cache/), "[Image #1]". The transcript holds the
// paste itself.
var placeholderKinds = [...]string{"[Pasted text #", "[...Truncated text #", "[Image #"}

// PromptPlaceholder reports a placeholder of a prompt history at the start
// of s: its number, whether it stands for pasted text, and its length (0
// when s opens with none).
func PromptPlaceholder(s string) (n string, text bool, size int) {
	for k, kind := range placeholderKinds {
		rest, ok := strings.CutPrefix(s, kind)
		end := strings.IndexByte(rest, ']')
		if !ok || end < 1 {
			continue
		}
		tail := strings.TrimLeft(rest[:end], "0123456789")
		if len(tail) < end && strings.Trim(tail, " +0123456789lines.") == "" {
			return rest[:end-len(tail)], k < 2, len(kind) + end + 1
		}
	}
	return "", false, 0
}

// PromptParts is a prompt, normalized (NormalizePrompt), cut at the
// placeholders it still holds (PromptPlaceholder: a paste whose text the
// history no longer has), each part trimmed: a turn holds the prompt when
// it holds the parts in order, the pastes between them. A prompt with no
// placeholder is one part.
func PromptParts(prompt string) []string {
	prompt = NormalizePrompt(prompt)
	var parts []string
	for i := 0; i < len(prompt); i++ {
		if _, _, size := PromptPlaceholder(prompt[i:]); size > 0 {
			parts = append(parts, strings.TrimSpace(prompt[:i]))
			prompt, i = prompt[i+size:], -1
		}
	}
	return append(parts, strings.TrimSpace(prompt))
}

// HoldsPromptParts reports whether text, a user message normalized, is
// the prompt cut in parts (PromptParts), the placeholders standing for
// anything, or with within holds it.
func HoldsPromptParts(text string, parts []string, within bool) bool {
	first, last := parts[0], parts[len(parts)-1]
	if len(parts) == 1 {
		return text == first || within && strings.Contains(text, first)
	}
	if !within {
		if len(text) < len(first)+len(last) || !strings.HasPrefix(text, first) || !strings.HasSuffix(text, last) {
			return false
		}
		text, parts = text[len(first):len(text)-len(last)], parts[1:len(parts)-1]
	}
	for _, p := range parts {
		i := strings.Index(text, p)
		if i < 0 {
			return false
		}
		text = text[i+len(p):]
	}
	return true
}
