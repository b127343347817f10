package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"time"
)

// Haystack is what one store holds: the sessions of one LoCoMo
// conversation or one LongMemEval question's history, and the questions
// asked of it.
type Haystack struct {
	Name      string
	Sessions  []Session
	Questions []Question
}

// Session is one session of a haystack, laid out as one Claude Code
// transcript.
type Session struct {
	// Label names the session in the benchmark's terms: LoCoMo's "D3",
	// LongMemEval's haystack session id. Evidence names sessions by it.
	Label string
	Start time.Time
	Lines []Line
}

// Line is one message of a session.
type Line struct {
	// Assistant marks an assistant message; every other line is the user's.
	Assistant bool
	Text      string
}

// Question is one question asked of a haystack.
type Question struct {
	ID       string
	Category string
	Text     string
	// Evidence labels the sessions that hold the answer.
	Evidence []string
	// Abstention marks LongMemEval's questions whose answer is not in the
	// history (ids ending in _abs).
	Abstention bool
}

// Format is a benchmark file's layout.
type Format string

const (
	LoCoMo      Format = "locomo"
	LongMemEval Format = "longmemeval"
)

// convert turns one element of a benchmark file's top-level list into a
// haystack.
func (f Format) convert(raw json.RawMessage) (Haystack, error) {
	switch f {
	case LoCoMo:
		return locomoHaystack(raw)
	case LongMemEval:
		return longMemEvalHaystack(raw)
	}
	return Haystack{}, fmt.Errorf("unknown format %q (want locomo or longmemeval)", f)
}

// detect tells the format from a list element's keys: a LoCoMo sample has
// a conversation and its qa, a LongMemEval instance a question_id.
func detect(raw json.RawMessage) (Format, error) {
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(raw, &keys); err != nil {
		return "", fmt.Errorf("the list's first element is not an object: %w", err)
	}
	switch {
	case keys["conversation"] != nil && keys["qa"] != nil:
		return LoCoMo, nil
	case keys["question_id"] != nil && keys["haystack_sessions"] != nil:
		return LongMemEval, nil
	}
	return "", fmt.Errorf("neither LoCoMo (conversation, qa) nor LongMemEval (question_id, haystack_sessions): pass -format")
}

// Reader reads a benchmark file's haystacks one at a time, so a
// LongMemEval file of hundreds of megabytes is never held whole.
type Reader struct {
	Format Format
	dec    *json.Decoder
	first  json.RawMessage
}

// NewReader starts reading a benchmark file, a JSON list. An empty format
// is detected from the list's first element.
func NewReader(r io.Reader, format Format) (*Reader, error) {
	dec := json.NewDecoder(r)
	tok, err := dec.Token()
	if err != nil {
		return nil, fmt.Errorf("not a JSON list: %w", err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return nil, fmt.Errorf("not a JSON list of samples")
	}
	br := &Reader{Format: format, dec: dec}
	if !dec.More() {
		return br, nil
	}
	if err := dec.Decode(&br.first); err != nil {
		return nil, err
	}
	if br.Format == "" {
		if br.Format, err = detect(br.first); err != nil {
			return nil, err
		}
	}
	return br, nil
}

// Next returns the next haystack, or io.EOF after the last.
func (r *Reader) Next() (Haystack, error) {
	raw := r.first
	r.first = nil
	if raw == nil {
		if !r.dec.More() {
			return Haystack{}, io.EOF
		}
		if err := r.dec.Decode(&raw); err != nil {
			return Haystack{}, err
		}
	}
	if bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return Haystack{}, fmt.Errorf("a null sample")
	}
	return r.Format.convert(raw)
}
