package hermes

import (
	"encoding/json"
	"math"
	"strings"
	"time"

	"github.com/deja-dev/deja/harness"
)

// notTyped are the openings of the user and assistant rows Hermes writes
// itself into a conversation: compaction handoffs and summaries (and the
// marker turn it adds when no human turn was kept:
// agent/context_compressor.py SUMMARY_PREFIX, LEGACY_SUMMARY_PREFIX,
// _MERGED_PRIOR_CONTEXT_HEADER, COMPRESSION_CONTINUATION_USER_CONTENT),
// the notes it appends when a background process or a delegation batch
// ends or a goal continues (a plugin test of hermes-agent lists them as
// "hermes control messages"), and the background review's prompts that
// older builds saved into real sessions (hermes_state.py's
// _REVIEW_HARNESS_PREFIXES). None is what a person typed or the agent
// answered.
var notTyped = []string{
	"[CONTEXT COMPACTION",
	"[CONTEXT SUMMARY]:",
	"[PRIOR CONTEXT",
	"Continue from the compressed conversation context above.",
	"[ASYNC DELEGATION BATCH COMPLETE",
	"[IMPORTANT: Background process",
	"[Your active task list was preserved across context compression]",
	"[Continuing toward your standing goal]",
	"Review the conversation above and update the skill library",
	"Review the conversation above and consider saving to memory",
}

// cronHeader opens the prompt of a cron job's run (the corpus's cron
// session): a bracketed paragraph of Hermes's delivery rules, then a blank
// line, then the job's prompt as the user wrote it.
const cronHeader = "[IMPORTANT: You are running as a scheduled cron job."

// cronPrompt is a cron run's prompt without Hermes's header; other text
// is returned as it is.
func cronPrompt(text string) string {
	if !strings.HasPrefix(text, cronHeader) {
		return text
	}
	if _, prompt, ok := strings.Cut(text, "]\n\n"); ok && strings.TrimSpace(prompt) != "" {
		return strings.TrimSpace(prompt)
	}
	return text
}

// summaryEnd closes a compaction summary; a row that carries the summary
// and the person's live ask in one (a "compaction carrier",
// hermes_state_rewind.py) has the ask after it.
const summaryEnd = "--- END OF CONTEXT SUMMARY"

// prompt is what a person typed in a user row's text: the text, a cron
// run's prompt without Hermes's header, the live ask after a compaction
// summary, or "" for a row Hermes wrote itself.
func prompt(text string) string {
	text = cronPrompt(text)
	if typed(text) {
		return text
	}
	if i := strings.LastIndex(text, summaryEnd); i >= 0 {
		_, ask, _ := strings.Cut(text[i:], "\n")
		if ask = strings.TrimSpace(ask); ask != "" && typed(ask) {
			return ask
		}
	}
	return ""
}

func typed(text string) bool {
	t := strings.TrimLeft(text, " \t\r\n")
	for _, p := range notTyped {
		if strings.HasPrefix(t, p) {
			return false
		}
	}
	return true
}

// buildSession turns one session and its message rows, in row order,
// into the neutral shape. A message's Line is its 1-based position among
// the session's rows: a store has no lines.
//
// Rows a rewind retired (/undo, /retry: active = 0, compacted = 0) are
// left out, as Hermes leaves them out of the conversation; rows an
// in-place compaction retired (active = 0, compacted = 1) were said and
// are kept. A session with no working directory (one from Telegram, a
// cron job) gets its repository root, else no project: the indexer then
// gives it the Hermes home the store lies in.
func buildSession(profile string, info sessionRow, rows []messageRow) harness.Session {
	s := harness.Session{
		ID:       sessionID(profile, info.ID),
		Project:  info.Cwd,
		Started:  toTime(info.Started),
		Subagent: info.Delegate || info.Source == "tool" || info.Source == "delegate",
		Marker:   info.marker(),
	}
	if s.Project == "" {
		s.Project = info.RepoRoot
	}
	if info.Parent != "" {
		s.Parent = sessionID(profile, info.Parent)
	}
	turn := -1
	calls := map[string][]int{}
	var names map[int]string
	for i, m := range rows {
		if !m.Active && !m.Compacted {
			continue
		}
		line, when := i+1, toTime(m.Time)
		if s.Started.IsZero() {
			s.Started = when
		}
		switch m.Role {
		case "user":
			if text := prompt(strings.TrimSpace(contentText(m.Content))); text != "" {
				turn++
				s.Messages = append(s.Messages, harness.Message{Role: harness.User, Text: text, Turn: turn, Line: line, Time: when})
			}
		case "assistant":
			if text := strings.TrimSpace(contentText(m.Content)); text != "" && typed(text) {
				s.Messages = append(s.Messages, harness.Message{Role: harness.Assistant, Text: text, Turn: turn, Line: line, Time: when})
			}
			for _, c := range toolCalls(m.ToolCalls) {
				for _, r := range callRecords(c, s.Project) {
					r.Turn, r.Line = turn, line
					if c.ID != "" {
						calls[c.ID] = append(calls[c.ID], len(s.Records))
					}
					if names == nil {
						names = map[int]string{}
					}
					names[len(s.Records)] = c.Function.Name
					s.Records = append(s.Records, r)
				}
			}
		case "tool":
			for _, at := range calls[m.ToolCallID] {
				ended(&s.Records[at], names[at], m.Content)
			}
			delete(calls, m.ToolCallID)
		}
	}
	s.Records = distinct(s.Records)
	return s
}

// contentText is a row's content as text: Hermes stores text, and a
// message of several parts as a JSON array of {type, text} parts, whose
// text parts are joined.
func contentText(content string) string {
	if !strings.HasPrefix(content, `[{"`) {
		return content
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal([]byte(content), &parts) != nil {
		return content
	}
	var texts []string
	for _, p := range parts {
		if p.Type == "text" && strings.TrimSpace(p.Text) != "" {
			texts = append(texts, p.Text)
		}
	}
	return strings.Join(texts, "\n\n")
}

// toTime reads Hermes's epoch seconds (REAL); zero, a negative or an
// absurd value is no time.
func toTime(sec float64) time.Time {
	if !(sec > 0 && sec < 1e11) {
		return time.Time{}
	}
	whole := math.Floor(sec)
	return time.Unix(int64(whole), int64((sec-whole)*1e9)).UTC()
}

// recordKey is a record without its line, and with its exit status by
// value, so that a call repeated in a turn with the same outcome is kept
// once.
type recordKey struct {
	r    harness.Record
	exit int
}

// distinct keeps the first of each record repeated in a turn, and drops
// the records ended emptied.
func distinct(rs []harness.Record) []harness.Record {
	seen := map[recordKey]bool{}
	out := rs[:0]
	for _, r := range rs {
		if r.Value == "" {
			continue
		}
		k := recordKey{r: r, exit: -1}
		k.r.Line = 0
		if r.Outcome.Exit != nil {
			k.exit, k.r.Outcome.Exit = *r.Outcome.Exit, nil
		}
		if !seen[k] {
			seen[k] = true
			out = append(out, r)
		}
	}
	return out
}
