package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/deja-dev/deja/install"
)

// agentHealth is how one agent is wired to deja.
type agentHealth struct {
	Agent string `json:"agent"`
	// Found is where the agent was found installed (its config directory
	// or program), "" when it was not.
	Found     string `json:"found,omitempty"`
	Installed bool   `json:"installed"`
	// File is the agent's MCP config file; "" for an agent without MCP.
	File string `json:"file,omitempty"`
	// Wired: its MCP config holds deja's entry as 'deja install' writes it
	// for this deja.
	Wired bool `json:"wired"`
	// Stale: an entry named deja is there but starts another deja.
	Stale bool `json:"stale"`
	// Hooks are the events whose hook runs 'deja hook' for this deja
	// ('deja install --hooks'); HookEvents those deja can register (nil
	// for an agent without hooks it answers).
	Hooks      []string `json:"hooks"`
	HookEvents []string `json:"hook_events,omitempty"`
	// Skill is the SKILL.md deja wrote for the agent, "" when none is
	// there (or the agent has no skills).
	Skill string `json:"skill,omitempty"`
	// Guidance is the guidance file holding deja's block, "" when none.
	Guidance string `json:"guidance,omitempty"`
	Error    string `json:"error,omitempty"`
}

// agentsDeja is which deja the agents start and which is on PATH.
type agentsDeja struct {
	// Deja is the deja install wires in (this one); OnPath is the deja a
	// shell finds on PATH, "" when there is none.
	Deja   string `json:"deja"`
	OnPath string `json:"deja_on_path"`
	// Same: the deja on PATH is this one.
	Same bool `json:"same_as_path"`
}

// agentsDiagnosis checks every agent 'deja install' knows.
func agentsDiagnosis(ctx context.Context, dataDir string) ([]agentHealth, agentsDeja) {
	env, err := installEnvFor(dataDir)
	if err != nil {
		return []agentHealth{{Error: err.Error()}}, agentsDeja{}
	}
	rep := agentsDeja{Deja: env.Deja}
	var agents []agentHealth
	if p, err := exec.LookPath("deja"); err == nil {
		if abs, err := filepath.Abs(p); err == nil {
			p = abs
		}
		if r, err := filepath.EvalSymlinks(p); err == nil {
			p = r
		}
		rep.OnPath = p
		rep.Same = sameFile(p, env.Deja)
	}
	note := func(h *agentHealth, err error) {
		if err != nil && h.Error == "" {
			h.Error = err.Error()
		}
	}
	for _, agent := range install.Agents {
		h := agentHealth{Agent: agent, Found: env.Found(agent), Hooks: []string{}}
		h.Installed = h.Found != ""
		for _, t := range install.Targets(env) {
			if t.Agent == agent {
				h.File = t.File
				wired, present, err := install.Wired(ctx, t)
				h.Wired, h.Stale = wired, present && !wired
				note(&h, err)
			}
		}
		names, events := install.HookEvents(env, agent)
		h.HookEvents = names
		for i, t := range events {
			wired, _, err := install.Wired(ctx, t)
			note(&h, err)
			if wired {
				h.Hooks = append(h.Hooks, names[i])
			}
		}
		for _, t := range install.SkillTargets(env) {
			if wired, _, err := install.Wired(ctx, t); t.Agent == agent && wired && err == nil {
				h.Skill = t.File
			}
		}
		for _, t := range install.GuidanceTargets(env) {
			if _, present, err := install.Wired(ctx, t); t.Agent == agent && present && err == nil {
				h.Guidance = t.File
			}
		}
		agents = append(agents, h)
	}
	return agents, rep
}

func sameFile(a, b string) bool {
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}

func printAgents(w io.Writer, agents []agentHealth, rep agentsDeja) {
	for i, a := range agents {
		label := "agents     "
		if i > 0 {
			label = "           "
		}
		if a.Agent == "" {
			fmt.Fprintf(w, "%s %s\n", label, a.Error)
			continue
		}
		var parts []string
		if a.Installed {
			parts = append(parts, "installed ("+homeShort(a.Found)+")")
		} else {
			parts = append(parts, "not installed")
		}
		switch {
		case a.File == "":
			parts = append(parts, "no MCP")
		case a.Error != "":
			parts = append(parts, fmt.Sprintf("cannot read %s: %s", homeShort(a.File), a.Error))
		case a.Wired:
			parts = append(parts, "MCP wired in ("+homeShort(a.File)+")")
		case a.Stale:
			parts = append(parts, fmt.Sprintf("%s starts another deja; 'deja install %s' points it at this one", homeShort(a.File), a.Agent))
		case a.Installed:
			parts = append(parts, fmt.Sprintf("MCP not wired in; 'deja install %s' adds deja", a.Agent))
		default:
			parts = append(parts, "MCP not wired in")
		}
		switch {
		case len(a.Hooks) > 0:
			parts = append(parts, "hooks: "+strings.Join(a.Hooks, ", "))
		case len(a.HookEvents) > 0 && a.Installed:
			parts = append(parts, "no hooks ('deja install --hooks "+a.Agent+"' adds them)")
		}
		if a.Skill != "" {
			parts = append(parts, "skill ("+homeShort(a.Skill)+")")
		}
		if a.Guidance != "" {
			parts = append(parts, "guidance ("+homeShort(a.Guidance)+")")
		}
		fmt.Fprintf(w, "%s %s: %s\n", label, a.Agent, strings.Join(parts, "; "))
	}
	switch {
	case rep.Deja == "":
	case rep.OnPath == "":
		fmt.Fprintf(w, "            deja is not on PATH; the agents start %s\n", homeShort(rep.Deja))
	case rep.Same:
		fmt.Fprintf(w, "            deja on PATH is %s, the one the agents start\n", homeShort(rep.OnPath))
	default:
		fmt.Fprintf(w, "            deja on PATH is %s, but install wires in %s (this one): run 'deja install' from the deja you use\n", homeShort(rep.OnPath), homeShort(rep.Deja))
	}
}
