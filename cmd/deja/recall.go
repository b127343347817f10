package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/deja-dev/deja/embed"
	"github.com/deja-dev/deja/memory/digest"
	"github.com/deja-dev/deja/memory/recall"
	"github.com/deja-dev/deja/quote"
	"github.com/deja-dev/deja/serve"
)

const recallLong = `Recall the past turns that best match QUERY, best first.

By default (--mode hybrid) deja ranks turns both by meaning and by the
keyword index, and fuses the two lists: a paraphrase finds a turn that shares
no word with it, and a file path, a command, "quoted text" or a code
identifier finds exactly the turns that hold it. --mode semantic or keyword
uses one list; when the semantic list is unavailable (no vectors from this
embedder) deja falls back to keywords and says why. A query that matches
nothing, in meaning or in words, returns nothing.

Each turn found is a preview: --json carries the first 2,000 characters of
the question ("user") and 600 of the answer ("assistant"), ending in "…"
where cut. 'deja show SESSION/TURN' prints the whole turn.

A turn a team folded in (deja team) says whose it is: "from USER@MACHINE"
on its line, "from" in --json. --mine keeps this machine's own turns alone,
--from USER those folded in from USER alone.`

type recallOptions struct {
	query        string
	json         bool
	mode         string
	project      string
	since, until string
	session      string
	limit        int
	harness      string
	subagents    bool
	mine         bool
	from         string
}

func newRecallCmd(io *IO) *cobra.Command {
	var opts recallOptions
	cmd := &cobra.Command{
		Use:   "recall QUERY",
		Short: "Find past turns by meaning, or by exact file, command or word",
		Long:  recallLong,
		Example: `  deja recall "that tenant bug"
  deja recall query.go
  deja recall "go test ./..." --since 7d
  deja recall --json --limit 3 "why is the image so big" | jq '.results[0].session_id'`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.query = strings.Join(args, " ")
			return runRecall(cmd, io, opts)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&opts.json, "json", false, "print one JSON object for scripts and agents")
	f.StringVar(&opts.mode, "mode", "", "hybrid, semantic or keyword (default from recall.mode: hybrid)")
	f.StringVar(&opts.project, "project", "", "only sessions of histories in DIR or below it")
	f.StringVar(&opts.since, "since", "", "only sessions started at or after: 2026-07-17, an RFC 3339 time, or an age (36h, 7d, 2w)")
	f.StringVar(&opts.until, "until", "", "only sessions started before (a date includes that day)")
	f.StringVar(&opts.session, "session", "", "only this session (its ID, or a part only it has)")
	f.IntVar(&opts.limit, "limit", 0, "how many turns to show (default from recall.limit: 5)")
	addHarnessFlags(cmd, &opts.harness, &opts.subagents)
	f.BoolVar(&opts.mine, "mine", false, "only this machine's own turns, none a team folded in")
	f.StringVar(&opts.from, "from", "", "only turns folded in from this team member (the user they share as)")
	return cmd
}

func runRecall(cmd *cobra.Command, io *IO, opts recallOptions) error {
	ctx := cmd.Context()
	cfg, err := loadConfig(cmd, map[string]string{"mode": "recall.mode", "limit": "recall.limit"})
	if err != nil {
		return err
	}
	mode, err := recall.ParseMode(cfg.Recall.Mode)
	if err != nil {
		return err
	}
	now := time.Now()
	sc := recall.Scope{Session: opts.session, Harness: opts.harness, Subagents: opts.subagents, Mine: opts.mine, From: opts.from}
	if err := checkHarness(sc.Harness); err != nil {
		return err
	}
	if err := checkOrigin(cmd, sc); err != nil {
		return err
	}
	if sc.Since, err = recall.ParseWhen(opts.since, now, false); err != nil {
		return fmt.Errorf("--since: %w", err)
	}
	if sc.Until, err = recall.ParseWhen(opts.until, now, true); err != nil {
		return fmt.Errorf("--until: %w", err)
	}
	if sc.Project, err = projectFlag(opts.project); err != nil {
		return err
	}
	// A running 'deja serve' for this data directory answers warm; without
	// one, recall reads the store itself (recall_served.go).
	if out := askServer(ctx, io, cfg, opts.query, mode, sc, true); out != nil {
		return reportRecall(io, recallOf(out), out, opts.json)
	}
	sto, err := openStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer sto.Close()
	if sc.Session != "" {
		if sc.Session, err = digest.ResolveSession(ctx, sto, sc.Session); err != nil {
			return exitError{code: 1, msg: "--session: " + err.Error()}
		}
	}
	if err := checkScope(ctx, sto, sc); err != nil {
		return err
	}

	// This process answers one recall: it reads the vectors a piece at a
	// time instead of loading them to keep.
	ropts := recall.Options{Query: opts.query, Mode: mode, Scope: sc, Limit: cfg.Recall.Limit, Once: true, Commits: true}
	if mode != recall.Keyword {
		var emb embed.Embedder
		emb, ropts.NoEmbedder = selectEmbedder(ctx, io, cfg)
		if emb != nil {
			ropts.Embedder = emb
		}
	}
	r, err := recall.Recall(ctx, sto, ropts)
	if errors.Is(err, recall.ErrEmpty) {
		return exitError{code: 1, msg: err.Error()}
	}
	if err != nil {
		return err
	}
	return reportRecall(io, r, nil, opts.json)
}

// checkOrigin refuses --mine with --from, which keep disjoint turns, and
// an empty --from.
func checkOrigin(cmd *cobra.Command, sc recall.Scope) error {
	if sc.Mine && cmd.Flags().Changed("from") {
		return exitError{code: 2, msg: "--mine and --from exclude each other: --mine keeps this machine's own turns, --from USER those folded in from USER"}
	}
	if cmd.Flags().Changed("from") && strings.TrimSpace(sc.From) == "" {
		return exitError{code: 2, msg: "--from needs the team member's user name (as 'deja recall' shows after \"from\")"}
	}
	return nil
}

// reportRecall prints the recall, as JSON or for people, and ends with
// exit 1 when nothing was found, as grep and rg do. served is the answer
// of the 'deja serve' that gave r, if one did: its JSON is printed as it
// came, so that it says what the server cut, as a local recall's does.
func reportRecall(io *IO, r *recall.Answer, served *serve.RecallOutput, asJSON bool) error {
	if asJSON {
		out := served
		if out == nil {
			local := serve.NewRecallOutput(r)
			out = &local
		}
		if err := printRecallOutput(io, *out); err != nil {
			return err
		}
	} else {
		printRecall(io, r, served)
	}
	if len(r.Results) == 0 {
		return errNothingFound
	}
	return nil
}

// cutTo cuts s to n runes with "…"; n 0 keeps it whole.
func cutTo(s string, n int) string {
	if n <= 0 || len([]rune(s)) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

// printRecallOutput prints a recall as 'deja serve' answers it, so
// scripts read one layout from either.
func printRecallOutput(io *IO, out serve.RecallOutput) error {
	enc := json.NewEncoder(io.Out)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// printRecall prints a recall for people; served, when set, is the
// server's answer r was made of, whose cuts (records_cut, results_cut)
// it says, as the answer itself does.
func printRecall(io *IO, r *recall.Answer, served *serve.RecallOutput) {
	if r.FallbackReason != "" {
		fmt.Fprintf(io.Err, "deja: %s recall fell back to keywords: %s\n", r.Mode, r.FallbackReason)
	}
	fmt.Fprint(io.Out, serve.RespelledNote(r.Respelled))
	if len(r.Results) == 0 {
		fmt.Fprintf(io.Out, "nothing found for %q: %s\n", r.Query, quote.Line(r.Note))
		return
	}
	// Lines fit the terminal (indented 3, labels 7); piped, they keep
	// fixed lengths.
	// Piped, each line has a fixed bound too: a turn that ran a pasted
	// script printed it whole on one 'ran:' line.
	question, answer, records := 100, 160, 240
	if io.Width > 0 {
		question = max(io.Width-11, 20)
		answer, records = question, question
	}
	now := time.Now()
	// History is printed inert (control characters, ANSI escapes made
	// visible), as it is quoted for agents, and a history a repository
	// brought in says so; colour is added after, so it is deja's alone.
	var origins quote.Origins
	for i, res := range r.Results {
		when, age := "start unknown", ""
		if !res.Started.IsZero() {
			when, age = res.Started.Format("2006-01-02 15:04"), " ("+serve.Age(now.Sub(res.Started))+")"
		}
		// SESSION/TURN pastes into 'deja show'; turn -1 holds the records
		// (files added, commands run) before the first message.
		session := quote.Line(res.SessionID)
		name := serve.TurnRef(session, res.Turn)
		if res.Turn == -1 {
			name += " (before the first message)"
		}
		ref := io.paint(sgrRef, serve.TurnRef(session, res.Turn)) + strings.TrimPrefix(name, serve.TurnRef(session, res.Turn))
		project := quote.Line(homeShort(res.Project))
		if res.Project == "" {
			project = serve.NoProject
		}
		// A turn a team folded in says whose it is.
		from := ""
		if res.From != "" {
			from = " · from " + quote.Line(res.From)
		}
		if io.Width > 0 {
			// On a narrow terminal the age gives way, then the project's
			// start (its end says most).
			width := func() int {
				return utf8.RuneCountInString(fmt.Sprintf("%d. %s · %s%s · %s%s", i+1, name, when, age, project, from))
			}
			if width() > io.Width {
				age = ""
			}
			if over := width() - io.Width; over > 0 {
				if r := []rune(project); len(r)-over-1 >= 6 {
					project = "…" + string(r[over+1:])
				}
			}
		}
		when += age
		fmt.Fprintf(io.Out, "%d. %s · %s · %s%s\n", i+1, ref, when, project, from)
		if origins.Imported(res.History) {
			fmt.Fprintf(io.Out, "   (%s)\n", quote.ImportedNote)
		}
		if res.User != "" {
			fmt.Fprintf(io.Out, "   %s %s\n", io.paint(sgrDim, "you:  "), io.highlight(quote.Line(oneLine(res.User, question)), r.Query))
		}
		if res.Assistant != "" {
			// Session IDs start with their harness's name (aider-, claude-).
			agent, _, _ := strings.Cut(session, "-")
			snippet := recall.Snippet(res.Assistant, r.Query, answer)
			fmt.Fprintf(io.Out, "   %s %s\n", io.paint(sgrDim, fmt.Sprintf("%-6s", agent+":")), io.highlight(quote.Line(snippet), r.Query))
		}
		if len(res.Files) > 0 {
			fmt.Fprintf(io.Out, "   %s %s\n", io.paint(sgrDim, "files:"), io.highlight(cutTo(quote.Line(strings.Join(res.Files, ", ")), records), r.Query))
		}
		if len(res.Commands) > 0 {
			fmt.Fprintf(io.Out, "   %s %s\n", io.paint(sgrDim, "ran:  "), io.highlight(cutTo(quote.Line(strings.Join(res.Commands, "; ")), records), r.Query))
		}
		if note := serve.ChangedNote(res.Changed, res.ChangedOf); note != "" {
			fmt.Fprintf(io.Out, "   %s %s\n", io.paint(sgrDim, "since: "), note)
		}
		if m := res.Mark; m != nil {
			fmt.Fprintf(io.Out, "   %s %s %s\n", io.paint(sgrDim, "marked:"), quote.Line(m.Verdict), cutTo(quote.Line(oneLine(m.Why, records)), records))
		}
		if served != nil && i < len(served.Results) && served.Results[i].RecordsCut > 0 {
			fmt.Fprintf(io.Out, "   (… %d more files and commands cut by deja serve: 'deja show %s' lists them)\n",
				served.Results[i].RecordsCut, serve.TurnRef(session, res.Turn))
		}
	}
	if served != nil && served.ResultsCut > 0 {
		fmt.Fprintf(io.Out, "(… %d more results cut by deja serve to keep its answer short: narrow the query or ask for fewer with --limit)\n", served.ResultsCut)
	}
	open := "'deja show SESSION/TURN' opens a turn"
	for _, res := range r.Results {
		if res.Turn == -1 {
			open += ", SESSION/before what came before the first message"
			break
		}
	}
	fmt.Fprintf(io.Out, "(%s, %s; %s)\n", r.RealizedMode, roundDuration(r.Took), open)
}
