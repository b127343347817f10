package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/deja-dev/deja/config"
	"github.com/deja-dev/deja/harness/claude"
	"github.com/deja-dev/deja/internal/words"
	"github.com/deja-dev/deja/memory/store"
)

// claudeCleanupDefault is Claude Code's cleanupPeriodDays when settings
// do not set it: transcripts older than 30 days are deleted at startup
// (shared/harness/FORMATS.md §1.8).
const claudeCleanupDefault = 30

// cleanupMargin is how long before the agent's cutoff an unindexed
// transcript is reported: it may be deleted at the next start after it.
const cleanupMargin = 7 * 24 * time.Hour

// cleanupHealth is what doctor says of an agent that deletes history.
type cleanupHealth struct {
	Harness string `json:"harness"`
	// Setting is where the period comes from: the settings file, or
	// "default".
	Setting string `json:"setting"`
	Days    int    `json:"days"`
	// Unindexed counts transcripts deja has not indexed; AtRisk those of
	// them within cleanupMargin of the cutoff, the oldest Oldest days old.
	Unindexed int `json:"unindexed"`
	AtRisk    int `json:"at_risk"`
	Oldest    int `json:"oldest_days,omitempty"`
}

// claudeCleanup reads Claude Code's cleanupPeriodDays and counts the
// transcripts it will delete before deja has indexed them. It returns nil
// when Claude Code is not installed or switched off.
func claudeCleanup(ctx context.Context, cfg config.Config, now time.Time) *cleanupHealth {
	if !cfg.Harness(claude.Name).Enabled {
		return nil
	}
	d := claude.Reader{}.Discover(discoverOptions(cfg, claude.Name))
	if !d.Installed {
		return nil
	}
	h := &cleanupHealth{Harness: claude.Name, Setting: "default", Days: claudeCleanupDefault}
	if file := claudeSettings(); file != "" {
		var s struct {
			CleanupPeriodDays *int `json:"cleanupPeriodDays"`
		}
		if data, err := os.ReadFile(file); err == nil && json.Unmarshal(data, &s) == nil && s.CleanupPeriodDays != nil {
			h.Setting, h.Days = file, *s.CleanupPeriodDays
		}
	}
	known := map[string]bool{}
	for _, p := range indexedFiles(ctx, cfg.DataDir) {
		known[p] = true
	}
	cutoff := time.Duration(h.Days) * 24 * time.Hour
	for _, s := range d.Sources {
		if known[s.Path] {
			continue
		}
		h.Unindexed++
		age := now.Sub(s.ModTime)
		if age >= cutoff-cleanupMargin {
			h.AtRisk++
			h.Oldest = max(h.Oldest, int(age.Hours()/24))
		}
	}
	return h
}

// claudeSettings is Claude Code's user settings file.
func claudeSettings() string {
	if dir := os.Getenv("CLAUDE_CONFIG_DIR"); dir != "" {
		return filepath.Join(dir, "settings.json")
	}
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return ""
	}
	return filepath.Join(home, ".claude", "settings.json")
}

// printCleanup writes doctor's cleanup line.
func printCleanup(w io.Writer, h *cleanupHealth) {
	if h == nil {
		return
	}
	setting := fmt.Sprintf("cleanupPeriodDays %d (%s)", h.Days, h.Setting)
	switch {
	case h.AtRisk > 0:
		fmt.Fprintf(w, "cleanup     %s: %s deletes transcripts at startup once they are %s old; %d not indexed yet %s within a week of it (oldest %s): run 'deja index' now\n",
			h.Harness, setting, words.Count(h.Days, "day"), h.AtRisk, words.IsAre(h.AtRisk), words.Count(h.Oldest, "day"))
	case h.Unindexed > 0:
		fmt.Fprintf(w, "cleanup     %s: %s; %s not indexed yet, none near the cutoff: 'deja index' keeps them\n", h.Harness, setting, words.Count(h.Unindexed, "transcript"))
	default:
		fmt.Fprintf(w, "cleanup     %s: %s; every transcript is indexed, and deja keeps them after Claude Code deletes them\n", h.Harness, setting)
	}
}

// indexedFiles lists the histories the store knows, without creating a
// store where there is none (doctor creates nothing).
func indexedFiles(ctx context.Context, dataDir string) []string {
	if _, err := os.Stat(filepath.Join(dataDir, store.DBFile)); err != nil {
		return nil
	}
	sto, err := store.Open(ctx, dataDir)
	if err != nil {
		return nil
	}
	defer sto.Close()
	paths, _ := sto.KnownFiles(ctx)
	return paths
}
