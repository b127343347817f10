package serve

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
)

// TestMissingLiteralIsSaidOverHTTPAndMCP: a path no turn mentions comes
// back with no results, not_found naming it and the note, from POST
// /v1/recall and from the MCP recall tool (structured and as text).
func TestMissingLiteralIsSaidOverHTTPAndMCP(t *testing.T) {
	m, _ := fixture(t)
	const missing = "src/components/Sidebar.tsx"
	ts := httptest.NewServer(NewHandler(m, NewMCPServer(m, "test"), ""))
	defer ts.Close()
	resp, err := http.Post(ts.URL+RecallPath, "application/json", strings.NewReader(`{"query":"`+missing+`"}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out RecallOutput
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	want := "no turn mentions " + missing
	if resp.StatusCode != http.StatusOK || len(out.Results) != 0 || !slices.Equal(out.NotFound, []string{missing}) || out.Note != want {
		t.Errorf("HTTP: status %d, %d results, not_found %q, note %q", resp.StatusCode, len(out.Results), out.NotFound, out.Note)
	}

	cs := connectPipes(t, m)
	var mo RecallOutput
	res := call(t, cs, "recall", map[string]any{"query": missing}, &mo)
	if res.IsError || len(mo.Results) != 0 || !slices.Equal(mo.NotFound, []string{missing}) {
		t.Errorf("MCP: error %v, %d results, not_found %q", res.IsError, len(mo.Results), mo.NotFound)
	}
	if !strings.Contains(text(res), want) {
		t.Errorf("MCP text %q does not say %q", text(res), want)
	}
}
