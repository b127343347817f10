package main

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/deja-dev/deja/internal/words"
	"github.com/deja-dev/deja/memory/digest"
	"github.com/spf13/cobra"
)

func newStatusCmd(io *IO) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show what is indexed, with which embedder, and what lacks vectors",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runStatus(cmd, io, asJSON)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON for scripts and agents")
	return cmd
}

type embedderStatusJSON struct {
	Identity  string `json:"identity"`
	Dimension int    `json:"dimension"`
	Turns     int    `json:"turns"`
	Lacking   int    `json:"lacking"`
	// NoVector is how many turns the embedder refused even cut shorter.
	NoVector int `json:"no_vector"`
}

func runStatus(cmd *cobra.Command, io *IO, asJSON bool) error {
	ctx := cmd.Context()
	_, sto, err := openConfigured(cmd)
	if err != nil {
		return err
	}
	defer sto.Close()
	st, err := digest.Status(ctx, sto)
	if err != nil {
		return err
	}
	if asJSON {
		out := map[string]any{
			"data_dir": st.Dir, "bytes": st.Bytes, "files": st.Files, "projects": st.Projects,
			"sessions": st.Sessions, "sessions_empty": st.Empty, "sessions_subagent": st.Subagent, "sessions_gone": st.Gone, "turns": st.Turns, "forgotten": st.Forgotten,
			"last_indexed": nil, "embedders": []embedderStatusJSON{},
		}
		if !st.LastIndexed.IsZero() {
			out["last_indexed"] = st.LastIndexed.Format(time.RFC3339)
		}
		var es []embedderStatusJSON
		for _, e := range st.Embedders {
			es = append(es, embedderStatusJSON{e.Identity, e.Dimension, e.Turns, e.Lacking, e.NoVector})
		}
		if es != nil {
			out["embedders"] = es
		}
		enc := json.NewEncoder(io.Out)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	w := io.Out
	fmt.Fprintf(w, "store       %s (%.1f MB)\n", st.Dir, float64(st.Bytes)/1e6)
	if st.Turns == 0 && st.Sessions == 0 && st.Empty == 0 {
		fmt.Fprintln(w, "nothing indexed yet: run 'deja index' (or 'deja index PATH')")
		return nil
	}
	fmt.Fprintf(w, "histories   %d in %s\n", st.Files, words.Count(st.Projects, "project"))
	fmt.Fprintf(w, "sessions    %d with turns (%d left their file and are kept)\n", st.Sessions, st.Gone)
	if st.Subagent > 0 {
		fmt.Fprintf(w, "            %d of them ran by subagents, out of recall and 'deja sessions' unless --include-subagents\n", st.Subagent)
	}
	if st.Empty > 0 {
		fmt.Fprintf(w, "            %d more hold no turn (started and quit): 'deja sessions --all' lists them\n", st.Empty)
	}
	fmt.Fprintf(w, "turns       %d\n", st.Turns)
	fmt.Fprintf(w, "forgotten   %s\n", words.Count(st.Forgotten, "session"))
	if !st.LastIndexed.IsZero() {
		fmt.Fprintf(w, "indexed     %s\n", st.LastIndexed.Format("2006-01-02 15:04:05"))
	}
	if len(st.Embedders) == 0 {
		fmt.Fprintln(w, "embedder    none yet: every turn lacks vectors; 'deja index' embeds them")
	}
	for _, e := range st.Embedders {
		fmt.Fprintf(w, "embedder    %s (%d-d): %s embedded, %d %s vectors", e.Identity, e.Dimension, words.Count(e.Turns, "turn"), e.Lacking, words.Verb(e.Lacking, "lack"))
		if e.NoVector > 0 {
			fmt.Fprintf(w, ", %d have none (the model refused them even cut shorter)", e.NoVector)
		}
		fmt.Fprintln(w)
	}
	return nil
}
