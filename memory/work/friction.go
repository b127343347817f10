package work

import (
	"context"
	"sort"
	"strings"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/internal/lazyre"
	"github.com/deja-dev/deja/memory/recall"
	"github.com/deja-dev/deja/memory/store"
)

// FrictionItem is an error that failed commands printed in several
// sessions.
type FrictionItem struct {
	// Error is the error line, its numbers, hex strings and directories
	// written as N, H and …/ so its runs in different places group.
	Error     string   `json:"error"`
	Sessions  int      `json:"sessions"`
	Runs      int      `json:"runs"`
	Harnesses []string `json:"harnesses"`
	Projects  []string `json:"projects"`
	// Last is the newest run that printed it, and its command.
	Last    Turn   `json:"last"`
	Command string `json:"command"`
}

// MinSessions is how many sessions an error must hit to be friction.
const MinSessions = 3

// frictionRows bounds the turns with failed runs a friction question
// reads, newest first.
const frictionRows = 20000

// Friction returns the errors that failed commands in scope printed in at
// least min sessions, the most sessions first, at most limit.
func Friction(ctx context.Context, s *store.Store, sc recall.Scope, min, limit int) ([]FrictionItem, error) {
	type group struct {
		FrictionItem
		sessions, harnesses, projects map[string]bool
	}
	groups := map[string]*group{}
	var order []string
	err := scanRows(ctx, s, sc, `w.work IS NOT NULL AND instr(unpack(w.work), '"status":"failed"') > 0`, nil, frictionRows, withOutputs, func(r row) error {
		for _, x := range r.work.Runs {
			if x.Status != harness.Failed {
				continue
			}
			sig := Signature(x.Output)
			if sig == "" {
				continue
			}
			g := groups[sig]
			if g == nil {
				g = &group{FrictionItem: FrictionItem{Error: sig, Last: r.Turn, Command: x.Command},
					sessions: map[string]bool{}, harnesses: map[string]bool{}, projects: map[string]bool{}}
				groups[sig] = g
				order = append(order, sig)
			}
			g.Runs++
			g.sessions[r.Session] = true
			g.harnesses[r.Harness] = true
			g.projects[r.Project] = true
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	var out []FrictionItem
	for _, sig := range order {
		g := groups[sig]
		if len(g.sessions) < min {
			continue
		}
		g.Sessions = len(g.sessions)
		g.Harnesses, g.Projects = sortedKeys(g.harnesses), sortedKeys(g.projects)
		out = append(out, g.FrictionItem)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Sessions > out[j].Sessions })
	if len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

var (
	// errorLine finds the line of an output that says what went wrong.
	errorLine = lazyre.New(`(?i)\b(error|errors|fatal|panic|exception|traceback|failed|failure|cannot|can't|unable to|not found|no such file|permission denied|undefined|refused|timed out|segmentation fault|syntaxerror|typeerror)\b`)
	// Parts of an error line that differ between runs of the same error:
	// where it was (file:line:column), hex strings, numbers, directories.
	location = lazyre.New(`[\w./\\~-]*\.[A-Za-z]\w*:\d+(?::\d+)?:?`)
	hexRun   = lazyre.New(`\b0x[0-9a-fA-F]+\b|\b[0-9a-f]{8,}\b`)
	number   = lazyre.New(`\d+`)
	dirPart  = lazyre.New(`(?:[A-Za-z]:)?(?:[\w.~-]*[/\\])+`)
)

// Signature is the error an output shows, written so the same error
// printed in another place, line or run reads the same: the first line
// that names an error (or the output's last line), its file:line places
// dropped and its directories, hex strings and numbers replaced, its spacing single, at most 160
// characters. An output with no line at all has none.
func Signature(output string) string {
	var line string
	for l := range strings.SplitSeq(output, "\n") {
		if strings.HasPrefix(l, "[… ") {
			continue // ClipOutput's note of what it left out
		}
		if errorLine.MatchString(l) {
			line = l
			break
		}
		if strings.TrimSpace(l) != "" {
			line = l
		}
	}
	line = location.ReplaceAllString(line, "")
	line = dirPart.ReplaceAllString(line, "…/")
	line = hexRun.ReplaceAllString(line, "H")
	line = number.ReplaceAllString(line, "N")
	return firstLine(strings.Join(strings.Fields(line), " "), 160)
}
