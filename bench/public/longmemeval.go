package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// longMemEvalDates are the layouts of LongMemEval's dates,
// "2023/05/20 (Sat) 02:21", and the same without the weekday.
var longMemEvalDates = []string{"2006/01/02 (Mon) 15:04", "2006/01/02 15:04"}

type longMemEvalInstance struct {
	QuestionID         string   `json:"question_id"`
	QuestionType       string   `json:"question_type"`
	Question           string   `json:"question"`
	HaystackSessionIDs []string `json:"haystack_session_ids"`
	HaystackDates      []string `json:"haystack_dates"`
	HaystackSessions   [][]struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	} `json:"haystack_sessions"`
	AnswerSessionIDs []string `json:"answer_session_ids"`
}

// longMemEvalHaystack converts one LongMemEval question and its history:
// each haystack session becomes one transcript, user turns as user lines
// and assistant turns as assistant lines, the i-th (from 0) at the
// session's date plus i minutes.
func longMemEvalHaystack(raw json.RawMessage) (Haystack, error) {
	var in longMemEvalInstance
	if err := json.Unmarshal(raw, &in); err != nil {
		return Haystack{}, fmt.Errorf("a LongMemEval instance: %w", err)
	}
	if len(in.HaystackSessionIDs) != len(in.HaystackSessions) || len(in.HaystackDates) != len(in.HaystackSessions) {
		return Haystack{}, fmt.Errorf("%s: %d haystack session ids and %d dates for %d sessions", in.QuestionID,
			len(in.HaystackSessionIDs), len(in.HaystackDates), len(in.HaystackSessions))
	}
	h := Haystack{Name: in.QuestionID}
	for i, turns := range in.HaystackSessions {
		start, err := parseLongMemEvalDate(in.HaystackDates[i])
		if err != nil {
			return Haystack{}, fmt.Errorf("%s session %s: %w", in.QuestionID, in.HaystackSessionIDs[i], err)
		}
		sess := Session{Label: in.HaystackSessionIDs[i], Start: start}
		for _, t := range turns {
			sess.Lines = append(sess.Lines, Line{Assistant: t.Role == "assistant", Text: t.Content})
		}
		h.Sessions = append(h.Sessions, sess)
	}
	h.Questions = []Question{{
		ID: in.QuestionID, Category: in.QuestionType, Text: in.Question,
		Evidence: in.AnswerSessionIDs, Abstention: strings.HasSuffix(in.QuestionID, "_abs"),
	}}
	return h, nil
}

func parseLongMemEvalDate(s string) (time.Time, error) {
	for _, layout := range longMemEvalDates {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("date %q is not like 2023/05/20 (Sat) 02:21", s)
}
