package serve

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"unicode/utf8"
)

// longSession is a session of 30 turns of about 1,000 characters each and
// one turn of 30,000: more than one page, and a turn longer than a page.
func longSession() string {
	var b strings.Builder
	b.WriteString("\n# aider chat started at 2026-08-01 09:00:00\n\n")
	for i := range 30 {
		fmt.Fprintf(&b, "#### question %d about the invoice totals  \n\n", i)
		fmt.Fprintf(&b, "answer %d: %s\n\n", i, strings.Repeat("the totals are summed per line item. ", 27))
	}
	b.WriteString("#### paste of the whole log  \n\n")
	b.WriteString(strings.Repeat("log line with a timestamp and a message\n", 750))
	b.WriteString("\n")
	return b.String()
}

func longFixture(t *testing.T) *Memory {
	t.Helper()
	m, path := fixture(t)
	appendHistory(t, path, longSession())
	idx(t, m.Store.Dir(), m.Embedder, path)
	return m
}

// TestShowToolIsBoundedAndPagesOn is an agent reading a long session: each
// answer stays within max_chars, says it was cut and where to go on, holds
// the text once (as text content, not again as structured content), and
// following next_from reads every turn exactly once.
func TestShowToolIsBoundedAndPagesOn(t *testing.T) {
	m := longFixture(t)
	cs := connectPipes(t, m)
	const session = "20260801T090000"

	var seen []int
	args := map[string]any{"session": session}
	for page := 0; ; page++ {
		if page > 40 {
			t.Fatalf("still paging after %d pages: %v", page, seen)
		}
		var p ShowPage
		res := call(t, cs, "show", args, &p)
		if res.IsError {
			t.Fatalf("show %v: %s", args, text(res))
		}
		md := text(res)
		if n := utf8.RuneCountInString(md); n > DefaultShowChars || n != p.Chars {
			t.Errorf("page %d: %d characters of text, page says %d; the bound is %d", page, n, p.Chars, DefaultShowChars)
		}
		data, _ := json.Marshal(res.StructuredContent)
		if bytes.Contains(data, []byte("the totals are summed")) || bytes.Contains(data, []byte("log line with")) {
			t.Errorf("page %d: structured content carries the turns' text again: %.300s", page, data)
		}
		for _, s := range p.Shown {
			seen = append(seen, s.Turn)
		}
		if !p.Cut {
			if p.NextFrom != nil || strings.Contains(md, "[cut:") {
				t.Errorf("last page says it was cut: %+v", p)
			}
			break
		}
		if !strings.Contains(md, "[cut: ") || !strings.Contains(md, p.Note) {
			t.Errorf("page %d is cut but its text does not say so:\n…%s", page, md[max(0, len(md)-300):])
		}
		if p.NextFrom == nil {
			break // the cut was inside the last turn asked for
		}
		if !strings.Contains(p.Note, fmt.Sprintf("from %d", *p.NextFrom)) {
			t.Errorf("page %d: note %q does not say from %d", page, p.Note, *p.NextFrom)
		}
		args = map[string]any{"session": session, "from": *p.NextFrom}
	}
	if len(seen) != 31 {
		t.Fatalf("paging read turns %v, want 0 to 30 once each", seen)
	}
	for i, turn := range seen {
		if turn != i {
			t.Fatalf("paging read turns %v, want 0 to 30 in order", seen)
		}
	}

	// The long turn alone: cut to the page, and the note gives the
	// max_chars that reads all of it, which does.
	var p ShowPage
	res := call(t, cs, "show", map[string]any{"session": session + "/30"}, &p)
	if res.IsError || !p.Cut || len(p.Shown) != 1 || !p.Shown[0].Cut || p.NextFrom != nil {
		t.Fatalf("show of a 30,000-character turn: %+v\n%.500s", p, text(res))
	}
	var want int
	if _, err := fmt.Sscanf(p.Note[strings.Index(p.Note, "max_chars ")+len("max_chars "):], "%d", &want); err != nil {
		t.Fatalf("note %q names no max_chars: %v", p.Note, err)
	}
	res = call(t, cs, "show", map[string]any{"session": session + "/30", "max_chars": want}, &p)
	if res.IsError || p.Cut || strings.Count(text(res), "log line with") != 750 {
		t.Errorf("show with max_chars %d from the note: cut %v, %d log lines", want, p.Cut, strings.Count(text(res), "log line with"))
	}

	// A range of turns, and a small page.
	res = call(t, cs, "show", map[string]any{"session": session, "from": 3, "to": 4}, &p)
	if res.IsError || len(p.Shown) != 2 || p.Shown[0].Turn != 3 || p.Shown[1].Turn != 4 || p.Cut {
		t.Errorf("from 3 to 4: %+v %s", p, text(res))
	}
	res = call(t, cs, "show", map[string]any{"session": session, "max_chars": 1500}, &p)
	if res.IsError || utf8.RuneCountInString(text(res)) > 1500 || !p.Cut {
		t.Errorf("max_chars 1500: %d characters, cut %v", utf8.RuneCountInString(text(res)), p.Cut)
	}

	for _, bad := range []struct {
		args map[string]any
		says string
	}{
		{map[string]any{"session": session, "from": 5, "to": 2}, "after to"},
		{map[string]any{"session": session, "max_chars": -1}, "positive"},
		{map[string]any{"session": session, "from": 40}, "no turns from 40"},
	} {
		res := call(t, cs, "show", bad.args, nil)
		if !res.IsError || !strings.Contains(text(res), bad.says) {
			t.Errorf("show %v: isError %v %q, want an error saying %q", bad.args, res.IsError, text(res), bad.says)
		}
	}
}

// TestShowEndpointIsBounded holds POST /v1/show to the tool's bounds, with
// the Markdown in the answer.
func TestShowEndpointIsBounded(t *testing.T) {
	m := longFixture(t)
	ts := httptest.NewServer(NewHandler(m, NewMCPServer(m, "test"), ""))
	defer ts.Close()
	resp, err := http.Post(ts.URL+ShowPath, "application/json", strings.NewReader(`{"session":"20260801T090000","max_chars":3000}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var p ShowPage
	if err := json.NewDecoder(resp.Body).Decode(&p); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("POST %s: %s %v", ShowPath, resp.Status, err)
	}
	if n := utf8.RuneCountInString(p.Markdown); n > 3000 || n != p.Chars || !p.Cut || p.NextFrom == nil {
		t.Errorf("POST %s max_chars 3000: %d characters, %+v", ShowPath, n, p.Shown)
	}
	resp, err = http.Post(ts.URL+ShowPath, "application/json", strings.NewReader(`{"session":"no-such-session"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("POST %s of an unknown session: %s, want 404", ShowPath, resp.Status)
	}
}

// TestSessionsToolCountsAndLeavesOutEmptySessions expects the tool to
// leave out sessions that hold no turn, count them, and say how many more
// there are past its limit.
func TestSessionsToolCountsAndLeavesOutEmptySessions(t *testing.T) {
	m, path := fixture(t)
	appendHistory(t, path, "\n# aider chat started at 2026-08-02 10:00:00\n\n> /usr/bin/aider  \n> Aider v0.86.1  \n")
	idx(t, m.Store.Dir(), m.Embedder, path)
	cs := connectPipes(t, m)

	var all, some SessionsOutput
	call(t, cs, "sessions", map[string]any{}, &all)
	if all.Empty != 1 || all.More != 0 || all.Total != len(all.Sessions) {
		t.Fatalf("sessions: total %d, more %d, empty %d, %d listed", all.Total, all.More, all.Empty, len(all.Sessions))
	}
	for _, s := range all.Sessions {
		if s.Turns == 0 {
			t.Errorf("sessions lists %s, which holds no turn", s.ID)
		}
	}
	res := call(t, cs, "sessions", map[string]any{"limit": 1}, &some)
	if len(some.Sessions) != 1 || some.Total != all.Total || some.More != all.Total-1 {
		t.Errorf("sessions limit 1: %d listed, total %d, more %d", len(some.Sessions), some.Total, some.More)
	}
	if txt := text(res); !strings.Contains(txt, fmt.Sprintf("%d more of %d", all.Total-1, all.Total)) || !strings.Contains(txt, "1 session that holds no turn is left out") {
		t.Errorf("sessions limit 1 text does not say what it left out:\n%s", txt)
	}
	call(t, cs, "sessions", map[string]any{"all": true}, &some)
	if len(some.Sessions) != all.Total+1 || some.Total != all.Total+1 {
		t.Errorf("sessions all: %d listed, total %d; want %d", len(some.Sessions), some.Total, all.Total+1)
	}
	res = call(t, cs, "sessions", map[string]any{"project": "/no/such/shop"}, nil)
	if !res.IsError || !strings.Contains(text(res), "closest indexed projects are") {
		t.Errorf("sessions of an unknown project: isError %v %q", res.IsError, text(res))
	}
}
