package main

import (
	"context"
	"fmt"
	"io"

	"github.com/deja-dev/deja/install"
)

// agentHealth is whether one agent starts this deja.
type agentHealth struct {
	Agent string `json:"agent"`
	File  string `json:"file"`
	// Found: the agent's files are in the home directory (or project).
	Found bool `json:"found"`
	// Wired: its config holds deja's entry as 'deja install' writes it
	// for this deja.
	Wired bool `json:"wired"`
	// Stale: an entry named deja is there but starts another deja.
	Stale bool `json:"stale"`
	// Hook: the agent's prompt hook runs 'deja hook' for this deja
	// ('deja install --hooks'); absent for agents without one.
	Hook  *bool  `json:"hook,omitempty"`
	Error string `json:"error,omitempty"`
}

// agentsDiagnosis checks every agent 'deja install' knows.
func agentsDiagnosis(ctx context.Context, dataDir string) []agentHealth {
	env, err := installEnvFor(dataDir)
	if err != nil {
		return []agentHealth{{Error: err.Error()}}
	}
	var out []agentHealth
	for _, t := range install.Targets(env) {
		h := agentHealth{Agent: t.Agent, File: t.File, Found: t.Found != ""}
		wired, present, err := install.Wired(ctx, t)
		h.Wired, h.Stale = wired, present && !wired
		if err != nil {
			h.Error = err.Error()
		}
		for _, ht := range install.HookTargets(env) {
			if ht.Agent == t.Agent {
				hooked, _, err := install.Wired(ctx, ht)
				h.Hook = &hooked
				if err != nil && h.Error == "" {
					h.Error = err.Error()
				}
			}
		}
		out = append(out, h)
	}
	return out
}

func printAgents(w io.Writer, agents []agentHealth) {
	for i, a := range agents {
		label := "agents     "
		if i > 0 {
			label = "           "
		}
		var what string
		switch {
		case a.Agent == "":
			what = a.Error
		case a.Error != "":
			what = fmt.Sprintf("%s: cannot read %s: %s", a.Agent, a.File, a.Error)
		case a.Wired:
			what = fmt.Sprintf("%s: wired in (%s)", a.Agent, a.File)
			if a.Hook != nil && *a.Hook {
				what += "; its prompt hook runs deja hook"
			}
		case a.Stale:
			what = fmt.Sprintf("%s: %s starts another deja; 'deja install %s' points it at this one", a.Agent, a.File, a.Agent)
		case a.Found:
			what = fmt.Sprintf("%s: not wired in; 'deja install %s' adds deja", a.Agent, a.Agent)
		default:
			what = fmt.Sprintf("%s: not found", a.Agent)
		}
		fmt.Fprintf(w, "%s %s\n", label, what)
	}
}
