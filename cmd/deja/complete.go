package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/deja-dev/deja/memory/digest"
	"github.com/deja-dev/deja/memory/recall"
	"github.com/deja-dev/deja/memory/store"
	"github.com/deja-dev/deja/quote"
)

// completionLimit bounds the session IDs one completion offers.
const completionLimit = 200

// addCompletions teaches the shell completion (deja completion) what deja's
// arguments and flags take: the indexed session IDs for show, forget,
// resume and --session; the indexed projects for --project; the harnesses
// and the recall modes by name.
func addCompletions(root *cobra.Command) {
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		switch c.Name() {
		case "show", "forget", "resume":
			c.ValidArgsFunction = completeSessions
		}
		flags := map[string]cobra.CompletionFunc{
			"session": completeSessions,
			"project": completeProjects,
			"harness": fixedCompletion(knownHarnesses().Names()...),
			"mode":    fixedCompletion(string(recall.Hybrid), string(recall.Semantic), string(recall.Keyword)),
		}
		for name, f := range flags {
			if c.Flags().Lookup(name) != nil {
				_ = c.RegisterFlagCompletionFunc(name, f)
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

func fixedCompletion(values ...string) cobra.CompletionFunc {
	return func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return values, cobra.ShellCompDirectiveNoFileComp
	}
}

// completeSessions offers the indexed session IDs that start with what was
// typed, newest first, each with its first question as the description.
func completeSessions(cmd *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	sessions := indexedSessions(cmd)
	var out []cobra.Completion
	for _, s := range sessions {
		// A session ID a terminal would act on is not offered to the
		// command line (the indexer no longer stores one).
		if strings.HasPrefix(s.ID, toComplete) && quote.Inert(s.ID) && len(out) < completionLimit {
			out = append(out, cobra.CompletionWithDesc(s.ID, oneLine(s.First, 60)))
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// completeProjects offers the indexed projects, and directories besides:
// --project takes any directory.
func completeProjects(cmd *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	var out []cobra.Completion
	for _, s := range indexedSessions(cmd) {
		if s.Project != "" && strings.HasPrefix(s.Project, toComplete) && quote.Inert(s.Project) && !slices.Contains(out, s.Project) {
			out = append(out, s.Project)
		}
	}
	slices.Sort(out)
	return out, cobra.ShellCompDirectiveFilterDirs
}

// indexedSessions reads the store's sessions for a completion, nil when
// there is no store yet: completing never creates one.
func indexedSessions(cmd *cobra.Command) []digest.SessionInfo {
	cfg, err := loadConfig(cmd, nil)
	if err != nil {
		return nil
	}
	if _, err := os.Stat(filepath.Join(cfg.DataDir, store.DBFile)); err != nil {
		return nil
	}
	sto, err := openStore(cmd.Context(), cfg)
	if err != nil {
		return nil
	}
	defer sto.Close()
	l, err := digest.ListSessions(cmd.Context(), sto, recall.Scope{}, 0, false)
	if err != nil {
		return nil
	}
	return l.Sessions
}
