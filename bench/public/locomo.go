package main

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// locomoCategories name LoCoMo's category numbers as its paper does.
var locomoCategories = map[int]string{
	1: "1 multi-hop", 2: "2 temporal", 3: "3 open-domain", 4: "4 single-hop", 5: "5 adversarial",
}

// locomoDate is the layout of a session's date: "1:56 pm on 8 May, 2023".
const locomoDate = "3:04 pm on 2 January, 2006"

// evidenceID finds dialogue ids in an evidence string. The file writes
// some lists as one string ("D8:6; D9:17") and a few ids badly ("D:11:26",
// "D"): those name no session and are passed over.
var evidenceID = regexp.MustCompile(`D(\d+):\d+`)

var locomoSession = regexp.MustCompile(`^session_(\d+)$`)

type locomoSample struct {
	SampleID     string                     `json:"sample_id"`
	Conversation map[string]json.RawMessage `json:"conversation"`
	QA           []struct {
		Question string   `json:"question"`
		Evidence []string `json:"evidence"`
		Category int      `json:"category"`
	} `json:"qa"`
}

type locomoTurn struct {
	Speaker string `json:"speaker"`
	Text    string `json:"text"`
}

// locomoHaystack converts one LoCoMo conversation: each session becomes
// one transcript of user lines "Speaker: text", the i-th (from 0) at the
// session's date plus i minutes. A question without a D<session>:<turn>
// evidence id is left out (four in locomo10.json).
func locomoHaystack(raw json.RawMessage) (Haystack, error) {
	var s locomoSample
	if err := json.Unmarshal(raw, &s); err != nil {
		return Haystack{}, fmt.Errorf("a LoCoMo sample: %w", err)
	}
	h := Haystack{Name: s.SampleID}
	var numbers []int
	for key := range s.Conversation {
		if m := locomoSession.FindStringSubmatch(key); m != nil {
			n, _ := strconv.Atoi(m[1])
			numbers = append(numbers, n)
		}
	}
	sort.Ints(numbers)
	for _, n := range numbers {
		key := fmt.Sprintf("session_%d", n)
		var turns []locomoTurn
		if err := json.Unmarshal(s.Conversation[key], &turns); err != nil {
			return Haystack{}, fmt.Errorf("%s %s: %w", s.SampleID, key, err)
		}
		var date string
		if err := json.Unmarshal(s.Conversation[key+"_date_time"], &date); err != nil {
			return Haystack{}, fmt.Errorf("%s %s_date_time: %w", s.SampleID, key, err)
		}
		start, err := time.Parse(locomoDate, date)
		if err != nil {
			return Haystack{}, fmt.Errorf("%s %s_date_time: %w", s.SampleID, key, err)
		}
		sess := Session{Label: fmt.Sprintf("D%d", n), Start: start}
		for _, t := range turns {
			sess.Lines = append(sess.Lines, Line{Text: t.Speaker + ": " + t.Text})
		}
		h.Sessions = append(h.Sessions, sess)
	}
	for i, qa := range s.QA {
		q := Question{ID: fmt.Sprintf("%s#%d", s.SampleID, i), Text: qa.Question, Category: locomoCategories[qa.Category]}
		if q.Category == "" {
			q.Category = strconv.Itoa(qa.Category)
		}
		seen := map[string]bool{}
		for _, m := range evidenceID.FindAllStringSubmatch(strings.Join(qa.Evidence, " "), -1) {
			if label := "D" + m[1]; !seen[label] {
				seen[label] = true
				q.Evidence = append(q.Evidence, label)
			}
		}
		if len(q.Evidence) > 0 {
			h.Questions = append(h.Questions, q)
		}
	}
	return h, nil
}
