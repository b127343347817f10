package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/deja-dev/deja/embed"
	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/harness/claude"
	"github.com/deja-dev/deja/memory/index"
	"github.com/deja-dev/deja/memory/recall"
	"github.com/deja-dev/deja/memory/store"
)

// Ranked is one question's sessions in one mode: distinct session labels
// in the order of deja's ranked turns, at most as many as were asked for.
type Ranked struct {
	Question Question
	Mode     recall.Mode
	Sessions []string
}

// sessionUUID names a haystack's n-th session's transcript: the reader
// takes a transcript's session id from its name.
func sessionUUID(n int) string {
	return fmt.Sprintf("00000000-0000-4000-8000-%012x", n)
}

// transcriptLine is a Claude Code conversational line as the reader reads
// it (harness/FORMATS.md §1.2–1.3): a user line's content is a string, an
// assistant line's a list of text blocks.
type transcriptLine struct {
	Type       string  `json:"type"`
	UUID       string  `json:"uuid"`
	ParentUUID *string `json:"parentUuid"`
	SessionID  string  `json:"sessionId"`
	Timestamp  string  `json:"timestamp"`
	Cwd        string  `json:"cwd"`
	Message    struct {
		Role    string `json:"role"`
		Content any    `json:"content"`
	} `json:"message"`
}

// WriteTranscript writes a session as a Claude Code transcript at path,
// its i-th line (from 0) stamped i minutes after the session's start.
func WriteTranscript(path, sessionID, cwd string, s Session) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(f)
	var parent *string
	for i, l := range s.Lines {
		ln := transcriptLine{
			Type: "user", UUID: fmt.Sprintf("%s-%d", sessionID, i), ParentUUID: parent, SessionID: sessionID,
			Timestamp: s.Start.Add(time.Duration(i) * time.Minute).UTC().Format("2006-01-02T15:04:05.000Z"), Cwd: cwd,
		}
		ln.Message.Role, ln.Message.Content = "user", l.Text
		if l.Assistant {
			ln.Type, ln.Message.Role = "assistant", "assistant"
			ln.Message.Content = []map[string]string{{"type": "text", "text": l.Text}}
		}
		if err := enc.Encode(ln); err != nil {
			f.Close()
			return err
		}
		parent = &ln.UUID
	}
	return f.Close()
}

// Measure builds a store of the haystack in a temporary directory under
// root, asks it each question in each mode, and removes it. turns is how
// many ranked turns each recall returns, the sessions they name the
// ranking scored; tune, when set, replaces recall's ranking constants.
func Measure(ctx context.Context, root string, h Haystack, emb embed.Embedder, modes []recall.Mode, turns int, tune *recall.Tuning) ([]Ranked, error) {
	dir, err := os.MkdirTemp(root, "haystack-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	if dir, err = filepath.EvalSymlinks(dir); err != nil {
		return nil, err
	}
	histories := filepath.Join(dir, "projects")
	if err := os.Mkdir(histories, 0o700); err != nil {
		return nil, err
	}
	label := map[string]string{}
	var paths []string
	for i, s := range h.Sessions {
		id := sessionUUID(i)
		path := filepath.Join(histories, id+".jsonl")
		if err := WriteTranscript(path, id, "/bench/"+h.Name, s); err != nil {
			return nil, err
		}
		paths = append(paths, path)
		label[claude.SessionID(id)] = s.Label
	}
	st, err := store.Open(ctx, filepath.Join(dir, "store"))
	if err != nil {
		return nil, err
	}
	defer st.Close()
	if _, err := index.Index(ctx, st, index.Options{Paths: paths, Embedder: emb, Harnesses: harness.Registry{claude.Reader{}}, Location: time.UTC}); err != nil {
		return nil, fmt.Errorf("%s: %w", h.Name, err)
	}
	var out []Ranked
	for _, q := range h.Questions {
		for _, mode := range modes {
			r, err := recall.Recall(ctx, st, recall.Options{Query: q.Text, Mode: mode, Embedder: emb, Limit: turns, Tuning: tune})
			if errors.Is(err, recall.ErrEmpty) {
				r, err = &recall.Answer{}, nil
			}
			if err != nil {
				return nil, fmt.Errorf("%s %q: %w", h.Name, q.Text, err)
			}
			rk := Ranked{Question: q, Mode: mode}
			seen := map[string]bool{}
			for _, res := range r.Results {
				if l := label[res.SessionID]; l != "" && !seen[l] {
					seen[l] = true
					rk.Sessions = append(rk.Sessions, l)
				}
			}
			out = append(out, rk)
		}
	}
	return out, nil
}
