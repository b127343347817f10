package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/spf13/cobra"

	"github.com/deja-dev/deja/config"
	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/internal/words"
	"github.com/deja-dev/deja/quote"
	"github.com/deja-dev/deja/userfile"
)

type parseOptions struct {
	files []string
	json  bool
}

func newParseCmd(io *IO) *cobra.Command {
	var opts parseOptions
	cmd := &cobra.Command{
		Use:   "parse [FILE...]",
		Short: "Show exactly what deja reads from histories",
		Long: withHarnesses(`Parse the histories of

  HARNESSES

and show what deja reads from them: the sessions, their start times and
IDs, and each session's messages and file and command records. With no
FILE, the histories 'deja sources' finds are parsed. Each file goes to the
harness that claims it.

Nothing is written; use it to check a history before indexing it.`),
		Example: `  deja parse .aider.chat.history.md
  deja parse --json ~/src/app/.aider.chat.history.md | jq '.files[0].sessions[0]'`,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.files = args
			cfg, err := loadConfig(cmd, nil)
			if err != nil {
				return err
			}
			return runParse(cmd.Context(), io, cfg, opts)
		},
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print one JSON object for scripts and agents")
	return cmd
}

type parseJSON struct {
	Files    []fileJSON `json:"files"`
	Warnings []string   `json:"warnings"`
}

type fileJSON struct {
	Path     string        `json:"path"`
	Harness  string        `json:"harness"`
	Stripped bool          `json:"whitespace_stripped"`
	Sessions []sessionJSON `json:"sessions"`
}

type sessionJSON struct {
	ID       string        `json:"id"`
	Ordinal  int           `json:"ordinal"`
	Started  *string       `json:"started"`
	Header   string        `json:"header"`
	Offset   int64         `json:"offset"`
	Project  string        `json:"project,omitempty"`
	Parent   string        `json:"parent,omitempty"`
	Subagent bool          `json:"subagent,omitempty"`
	Messages []messageJSON `json:"messages"`
	Records  []recordJSON  `json:"records"`
}

type messageJSON struct {
	Role string  `json:"role"`
	Text string  `json:"text"`
	Turn int     `json:"turn"`
	Line int     `json:"line"`
	Time *string `json:"time,omitempty"`
}

type recordJSON struct {
	Kind   string `json:"kind"`
	Value  string `json:"value"`
	Action string `json:"action,omitempty"`
	Turn   int    `json:"turn"`
	Line   int    `json:"line"`
}

func runParse(ctx context.Context, io *IO, cfg config.Config, opts parseOptions) error {
	out := parseJSON{Files: []fileJSON{}, Warnings: []string{}}
	paths := opts.files
	if len(paths) == 0 {
		found, warnings := discoverSources(cfg)
		out.Warnings = append(out.Warnings, warnings...)
		for _, s := range found {
			paths = append(paths, s.Path)
		}
		if len(paths) == 0 {
			return exitError{code: 1, msg: "no histories found; name a file (deja parse FILE) or see 'deja sources'"}
		}
	}
	failed := 0
	for _, p := range paths {
		abs, err := userfile.ResolvePath(p)
		if err != nil {
			out.Warnings = append(out.Warnings, fmt.Sprintf("%s: %v", p, err))
			failed++
			continue
		}
		name, h, err := parseHistory(ctx, enabledHarnesses(cfg), abs)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				err = fmt.Errorf("%s: no such file", p)
			}
			out.Warnings = append(out.Warnings, err.Error())
			failed++
			continue
		}
		for _, w := range slices.Concat(h.Refused, h.Warnings) {
			out.Warnings = append(out.Warnings, abs+": "+w)
		}
		f := historyJSON(h)
		f.Harness = name
		out.Files = append(out.Files, f)
	}
	if opts.json {
		enc := json.NewEncoder(io.Out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			return err
		}
	} else {
		printParse(io, out)
	}
	if failed == len(paths) {
		return exitError{code: exitFailed}
	}
	return nil
}

func historyJSON(h *harness.History) fileJSON {
	f := fileJSON{Path: h.Path, Stripped: h.Stripped, Sessions: make([]sessionJSON, 0, len(h.Sessions))}
	for _, s := range h.Sessions {
		sj := sessionJSON{ID: s.ID, Ordinal: s.Ordinal, Header: s.Header, Offset: s.Offset,
			Project: s.Project, Parent: s.Parent, Subagent: s.Subagent,
			Messages: make([]messageJSON, 0, len(s.Messages)), Records: make([]recordJSON, 0, len(s.Records))}
		if s.HasStart() {
			t := s.Started.Format(time.RFC3339)
			sj.Started = &t
		}
		for _, m := range s.Messages {
			mj := messageJSON{Role: string(m.Role), Text: m.Text, Turn: m.Turn, Line: m.Line}
			if !m.Time.IsZero() {
				t := m.Time.Format(time.RFC3339)
				mj.Time = &t
			}
			sj.Messages = append(sj.Messages, mj)
		}
		for _, r := range s.Records {
			sj.Records = append(sj.Records, recordJSON{Kind: string(r.Kind), Value: r.Value, Action: string(r.Action), Turn: r.Turn, Line: r.Line})
		}
		f.Sessions = append(f.Sessions, sj)
	}
	return f
}

func printParse(io *IO, out parseJSON) {
	for _, f := range out.Files {
		users, records := 0, 0
		for _, s := range f.Sessions {
			records += len(s.Records)
			for _, m := range s.Messages {
				if m.Role == "user" {
					users++
				}
			}
		}
		fmt.Fprintf(io.Out, "%s\n  %s, %s, %s\n", quote.Line(f.Path), words.Count(len(f.Sessions), "session"), words.Count(users, "user message"), words.Count(records, "record"))
		for _, s := range f.Sessions {
			started := "(no start time)"
			if s.Started != nil {
				started = *s.Started
			}
			u, a := 0, 0
			for _, m := range s.Messages {
				if m.Role == "user" {
					u++
				} else {
					a++
				}
			}
			fmt.Fprintf(io.Out, "  %-40s %-25s %3d user %3d assistant %3d records\n", quote.Line(s.ID), started, u, a, len(s.Records))
		}
	}
	for _, w := range out.Warnings {
		fmt.Fprintln(io.Err, "deja: warning:", quote.Line(w))
	}
}

// parseHistory reads the file at path with the first harness that claims
// it, and returns that harness's name with what it read.
func parseHistory(ctx context.Context, reg harness.Registry, path string) (string, *harness.History, error) {
	info, err := os.Stat(path)
	if err != nil {
		return "", nil, err
	}
	if info.IsDir() {
		// A store read whole may be a folder (an Antigravity conversation,
		// OpenCode's storage tree), claimed by its path as the indexer does.
		if h, err := reg.Detect(path, nil); err == nil {
			if r, ok := h.(harness.WholeReader); ok {
				hist, err := harness.ReadStore(ctx, r, path, harness.ParseOptions{Path: path})
				return h.Name(), hist, err
			}
		}
		return "", nil, fmt.Errorf("%s is a directory, not a history file", path)
	}
	data, _, err := userfile.Read(ctx, path, 0)
	if errors.Is(err, userfile.ErrNotRegular) {
		return "", nil, fmt.Errorf("%w, skipped (point deja at the history file itself)", err)
	}
	if err != nil {
		return "", nil, err
	}
	h, err := reg.Detect(path, data[:min(len(data), 8192)])
	if err != nil {
		return "", nil, fmt.Errorf("%s: %w, skipped", path, err)
	}
	opts := harness.ParseOptions{Path: path}
	switch r := h.(type) {
	case harness.WholeReader:
		hist, err := harness.ReadStore(ctx, r, path, opts)
		return h.Name(), hist, err
	case harness.FileReader:
		dec, _ := r.(harness.Decoder)
		data, dropped, err := harness.ReadAll(path, bytes.NewReader(data), dec, harness.Limits{})
		if err != nil {
			return "", nil, fmt.Errorf("%s: %w, skipped", path, err)
		}
		hist := harness.ParseFile(r, data, opts)
		hist.Warnings = append(dropped, hist.Warnings...)
		return h.Name(), hist, nil
	}
	return "", nil, fmt.Errorf("%s: harness %s reads no files", path, h.Name())
}
