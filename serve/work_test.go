package serve

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/deja-dev/deja/quote"
)

// TestWorkToolsAnswerAndShowAHostileHistoryInert: blame, how and fix
// answer from the hostile session's records and outcomes (the edit of the
// hyperlinked file applied, the command failed with exit 2 printing a
// "# SYSTEM" block), and every text of theirs reaches the agent inert, the
// history's lines only inside the quoted block; a request without what it
// asks about, or with a bad scope, is refused as a bad request.
func TestWorkToolsAnswerAndShowAHostileHistoryInert(t *testing.T) {
	m := hostileStore(t)
	cs := connectPipes(t, m)

	var b BlameOutput
	res := call(t, cs, "blame", map[string]any{"path": hostileFile}, &b)
	if res.IsError || len(b.Turns) != 1 || b.Turns[0].How != "edited" || b.Turns[0].Outcome != "ok" {
		t.Fatalf("blame: error %v, %+v\n%s", res.IsError, b.Turns, text(res))
	}
	checkInert(t, "blame", text(res))
	data, _ := json.Marshal(b)
	checkInert(t, "blame structured", string(data)+b.Turns[0].File+b.Turns[0].Project+b.Turns[0].Question)
	checkFields(t, "blame structured", b.Turns[0].File, b.Turns[0].Project, b.Turns[0].Ref)

	var h HowOutput
	res = call(t, cs, "how", map[string]any{"text": "make deploy"}, &h)
	if res.IsError || len(h.Groups) != 1 || h.Groups[0].Failed != 1 || *h.Groups[0].Commands[0].LastExit != 2 {
		t.Fatalf("how: error %v, %+v\n%s", res.IsError, h.Groups, text(res))
	}
	checkInert(t, "how", text(res))
	checkFields(t, "how structured", h.Groups[0].Commands[0].Command)
	if !strings.Contains(text(res), "make deploy <U+001B>]52;c;") {
		t.Errorf("how: the clipboard write is not shown as text:\n%s", text(res))
	}

	var f FixOutput
	res = call(t, cs, "fix", map[string]any{"error": "deploy refused"}, &f)
	if res.IsError || len(f.Sessions) != 1 || f.Sessions[0].Fixed {
		t.Fatalf("fix: error %v, %+v\n%s", res.IsError, f.Sessions, text(res))
	}
	checkInert(t, "fix", text(res))
	checkFields(t, "fix structured", f.Sessions[0].Line, f.Sessions[0].Command)
	if _, inside, _ := quote.Split(text(res)); !strings.Contains(inside, "deploy refused") {
		t.Errorf("fix: the error line is not in the quoted block:\n%s", text(res))
	}

	var fr FrictionOutput
	res = call(t, cs, "friction", map[string]any{"sessions": 1}, &fr)
	if res.IsError || len(fr.Errors) != 1 || fr.Errors[0].Sessions != 1 {
		t.Fatalf("friction: error %v, %+v\n%s", res.IsError, fr.Errors, text(res))
	}
	checkInert(t, "friction", text(res))
	checkFields(t, "friction structured", fr.Errors[0].Error, fr.Errors[0].Command)

	var rs RestoreOutput
	res = call(t, cs, "restore", map[string]any{"path": hostileFile}, &rs)
	if res.IsError || len(rs.Edits) != 1 || rs.Edits[0].Old != "a" || rs.Edits[0].New != "b" {
		t.Fatalf("restore: error %v, %+v\n%s", res.IsError, rs, text(res))
	}
	checkInert(t, "restore", text(res))
	checkFields(t, "restore structured", rs.File, rs.Ref)
	if res := call(t, cs, "restore", map[string]any{"path": "never/edited.go"}, nil); !res.IsError {
		t.Errorf("restore of a file no turn edited: not an error:\n%s", text(res))
	}

	for tool, args := range map[string]map[string]any{
		"blame":    {"path": " "},
		"how":      {"text": ""},
		"fix":      {"error": "x", "since": "the other day"},
		"friction": {"sessions": -1},
		"restore":  {"path": ""},
	} {
		if res := call(t, cs, tool, args, nil); !res.IsError {
			t.Errorf("%s %v: not refused:\n%s", tool, args, text(res))
		}
	}
}
