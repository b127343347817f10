package codex

import (
	"bytes"

	"github.com/deja-dev/deja/harness"
	json "github.com/deja-dev/deja/internal/jsonlimit"
)

// legacyRollout is the first generation of rollout (§2.2, 1): one JSON
// object per file, sessions/rollout-<date>-<uuid>.json, whose items are
// chat-completions messages.
type legacyRollout struct {
	Session *struct {
		Timestamp string `json:"timestamp"`
		ID        string `json:"id"`
	} `json:"session"`
	Items []json.RawMessage `json:"items"`
}

type legacyItem struct {
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	ToolCalls []struct {
		Function struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
	// Type marks a Responses-API item written into the same array.
	Type string `json:"type"`
}

// isLegacy reports whether data opens as a legacy rollout: an object
// holding its session (no line of the later generations has one).
func isLegacy(data []byte) bool {
	return harness.TopKeys(data, "session")[0]
}

// hasItems reports whether the object data opens with holds its items
// before any cut.
func hasItems(data []byte) bool {
	return harness.TopKeys(data, "items")[0]
}

// parseLegacy reads a legacy rollout whole. The file is one object that
// Codex rewrote as the session went on, so a partial one (still being
// written, or torn) is read on a later index; it is counted as a warning
// only when it can never become whole (it was not cut short).
func parseLegacy(data []byte, opts harness.ParseOptions) *harness.History {
	hist := &harness.History{Path: opts.Path}
	var lr legacyRollout
	if err := json.Unmarshal(data, &lr); err != nil || lr.Session == nil {
		if err != nil && !bytes.HasSuffix(bytes.TrimRight(data, " \t\r\n"), []byte("}")) {
			return hist // not yet written out
		}
		hist.Warnings = []string{"a legacy rollout that is not one readable JSON object; skipped"}
		return hist
	}
	p := &parser{opts: opts, hist: hist, st: state{turn: -1}}
	p.meta(meta{ID: lr.Session.ID, Timestamp: lr.Session.Timestamp})
	t := p.st.sess.Started
	for i, raw := range lr.Items {
		n := i + 1 // the item's place in the array stands for its line
		var it legacyItem
		json.Unmarshal(raw, &it)
		if it.Type != "" {
			// A Responses-API item (message, function_call): read as the
			// line formats read it.
			var ri item
			json.Unmarshal(raw, &ri)
			p.item(ri, t, n)
			continue
		}
		text := itemText(it.Content)
		switch it.Role {
		case "user":
			if text != "" && !injectedContext(text) {
				p.addUser(text, t, n)
			}
		case "assistant":
			p.addAssistant(text, t, n)
			for _, c := range it.ToolCalls {
				for _, r := range toolRecords(item{Type: "function_call", Name: c.Function.Name, Arguments: c.Function.Arguments}, p.st.sess.Project) {
					r.Turn, r.Line = p.st.turn, n
					p.st.sess.Records = append(p.st.sess.Records, r)
				}
			}
		}
	}
	return p.Finish(opts.Offset + int64(len(data)))
}
