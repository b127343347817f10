package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/spf13/cobra"

	"github.com/deja-dev/deja/config"
	"github.com/deja-dev/deja/embed"
	"github.com/deja-dev/deja/internal/words"
	"github.com/deja-dev/deja/memory/digest"
	"github.com/deja-dev/deja/memory/store"
	"github.com/deja-dev/deja/memory/store/check"
	"github.com/deja-dev/deja/quote"
	"github.com/deja-dev/deja/serve"
)

const doctorLong = `Check what deja depends on, the things to look at first when recall finds
nothing or an index waits:

  sources   the histories deja finds, and why (as 'deja sources')
  store     where the store is, its size, sessions and turns
  integrity whether the store checks out: SQLite's integrity_check, the
            keyword index against the turns, each turn's text against its
            hash, the rows against the checksum kept as they were written,
            and the vector segments' checksums (it reads the whole store)
  vectors   turns per embedder, and how many lack vectors
  ollama    whether Ollama answers at ollama.host (or OLLAMA_HOST) within
            1.5 s, whether embed.model is pulled, and its context (longer
            texts are cut into parts that fit)
  serve     whether a 'deja serve' runs: serve.json in the data directory,
            and whether its address answers
  lock      whether a deja holds the store's index lock, and its pid
  agents    per agent: found, and whether its config starts this deja
            ('deja install' wires it in)

doctor changes nothing: it creates no store and holds the lock only for the
instant it takes to test it. It exits 0 unless the store is damaged: then it
says what does not check out and exits 2; 'deja index --rebuild' moves the
damaged store aside and rebuilds it from the histories.

--json prints one object with these stable fields:
  config_file, data_dir                 strings ("" when no config file)
  sources[]     {path, reasons[{kind, from, name}], size, modified}
  source_warnings[]                     strings
  switched_off[]                        strings: "amp (config file)", each
                                        harness <name>.enabled = false leaves
                                        unread, and where that was set
  store         {path, exists, bytes, files, sessions, turns, forgotten,
                 last_indexed (RFC 3339 or null), error, damaged,
                 damage[]}: damage lists what does not check out
  embedders[]   {identity, dimension, turns, lacking, no_vector}
  embed         {provider, model}
  ollama        {host, model, reachable, model_pulled, context_length,
                 dimension, error}; the last three only when set
  serve         {file, running, url, pid, started, error}; url and the
                 rest only when serve.json exists
  lock          {path, held, pid}
  agents[]      {agent, file, found, wired, stale, error}: whether each
                agent 'deja install' knows starts this deja`

func newDoctorCmd(io *IO) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Check sources, store, embedders, Ollama, deja serve and the index lock",
		Long:  doctorLong,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := loadConfig(cmd, nil)
			if err != nil {
				return err
			}
			rep := diagnose(cmd.Context(), cfg)
			if asJSON {
				enc := json.NewEncoder(io.Out)
				enc.SetIndent("", "  ")
				if err := enc.Encode(rep); err != nil {
					return err
				}
			} else {
				printDoctor(io, rep)
			}
			if rep.Store.Damaged {
				return exitError{code: exitFailed, msg: fmt.Sprintf("the store in %s is damaged: '%s' moves it aside and rebuilds it from the histories, and says what it could not recover", cfg.DataDir, store.RebuildCommand)}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object (fields in 'deja doctor --help')")
	return cmd
}

// doctorReport is what doctor finds; its JSON form is documented in
// doctorLong and kept stable for scripts.
type doctorReport struct {
	ConfigFile     string       `json:"config_file"`
	DataDir        string       `json:"data_dir"`
	Sources        []sourceJSON `json:"sources"`
	SourceWarnings []string     `json:"source_warnings"`
	// SwitchedOff names each harness <name>.enabled = false leaves
	// unread, and where that came from: "amp (config file)".
	SwitchedOff []string             `json:"switched_off"`
	Store       storeHealth          `json:"store"`
	Embedders   []embedderStatusJSON `json:"embedders"`
	Embed       embedHealth          `json:"embed"`
	Ollama      ollamaHealth         `json:"ollama"`
	Serve       serveHealth          `json:"serve"`
	Lock        lockHealth           `json:"lock"`
	Cleanup     *cleanupHealth       `json:"cleanup,omitempty"`
	Agents      []agentHealth        `json:"agents"`
	// AgentsDeja is which deja the agents start and which is on PATH.
	AgentsDeja agentsDeja `json:"agents_deja"`
}

type storeHealth struct {
	Path        string  `json:"path"`
	Exists      bool    `json:"exists"`
	Bytes       int64   `json:"bytes"`
	Files       int     `json:"files"`
	Sessions    int     `json:"sessions"`
	Turns       int     `json:"turns"`
	Forgotten   int     `json:"forgotten"`
	LastIndexed *string `json:"last_indexed"`
	Error       string  `json:"error,omitempty"`
	// Damaged is set when the store does not open for damage, or its
	// check finds something wrong (Damage).
	Damaged bool     `json:"damaged"`
	Damage  []string `json:"damage"`
}

type embedHealth struct {
	Provider string `json:"provider"`
	Model    string `json:"model"`
}

type ollamaHealth struct {
	Host      string `json:"host"`
	Model     string `json:"model"`
	Reachable bool   `json:"reachable"`
	// ModelPulled is null when Ollama did not answer.
	ModelPulled *bool `json:"model_pulled"`
	// ContextLength and Dimension are the pulled model's, when Ollama
	// reports them.
	ContextLength int    `json:"context_length,omitempty"`
	Dimension     int    `json:"dimension,omitempty"`
	Error         string `json:"error,omitempty"`
}

type serveHealth struct {
	File    string `json:"file"`
	Running bool   `json:"running"`
	URL     string `json:"url,omitempty"`
	PID     int    `json:"pid,omitempty"`
	Started string `json:"started,omitempty"`
	Error   string `json:"error,omitempty"`
}

type lockHealth struct {
	Path string `json:"path"`
	Held bool   `json:"held"`
	PID  int    `json:"pid,omitempty"`
}

// doctorProbe bounds each network check, as embed's auto selection does.
const doctorProbe = 1500 * time.Millisecond

func diagnose(ctx context.Context, cfg config.Config) doctorReport {
	rep := doctorReport{ConfigFile: cfg.File, DataDir: cfg.DataDir, Embedders: []embedderStatusJSON{}}
	sources, warnings := discoverSources(cfg)
	rep.Sources = make([]sourceJSON, 0, len(sources))
	for _, s := range sources {
		rep.Sources = append(rep.Sources, newSourceJSON(s))
	}
	rep.SourceWarnings = append([]string{}, warnings...)
	rep.SwitchedOff = []string{}
	for _, name := range config.HarnessNames {
		if !cfg.Harness(name).Enabled {
			rep.SwitchedOff = append(rep.SwitchedOff, fmt.Sprintf("%s (%s)", name, cfg.Sources[name+".enabled"]))
		}
	}
	rep.Store, rep.Embedders = storeDiagnosis(ctx, cfg.DataDir)
	rep.Embed = embedHealth{Provider: cfg.Embed.Provider, Model: cfg.Embed.Model}
	rep.Ollama = ollamaDiagnosis(ctx, cfg)
	rep.Serve = serveDiagnosis(ctx, cfg.DataDir)
	rep.Lock = lockDiagnosis(ctx, cfg.DataDir)
	rep.Cleanup = claudeCleanup(ctx, cfg, time.Now())
	rep.Agents, rep.AgentsDeja = agentsDiagnosis(ctx, cfg.DataDir)
	return rep
}

// storeDiagnosis reads the store's counts without creating a store that
// is not there.
func storeDiagnosis(ctx context.Context, dir string) (storeHealth, []embedderStatusJSON) {
	h := storeHealth{Path: filepath.Join(dir, store.DBFile), Damage: []string{}}
	es := []embedderStatusJSON{}
	if _, err := os.Stat(h.Path); err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			h.Error = err.Error()
		}
		return h, es
	}
	h.Exists = true
	sto, err := store.Open(ctx, dir)
	if err != nil {
		h.Error = err.Error()
		h.Damaged = errors.Is(err, store.ErrDamaged)
		return h, es
	}
	defer sto.Close()
	if h.Damage, err = check.Check(ctx, sto); err != nil {
		h.Error = err.Error()
		return h, es
	}
	h.Damaged = len(h.Damage) > 0
	st, err := digest.Status(ctx, sto)
	if err != nil {
		h.Error = store.Explain(err).Error()
		h.Damaged = h.Damaged || errors.Is(store.Explain(err), store.ErrDamaged)
		return h, es
	}
	h.Bytes, h.Files, h.Sessions, h.Turns, h.Forgotten = st.Bytes, st.Files, st.Sessions, st.Turns, st.Forgotten
	if !st.LastIndexed.IsZero() {
		s := st.LastIndexed.Format(time.RFC3339)
		h.LastIndexed = &s
	}
	for _, e := range st.Embedders {
		es = append(es, embedderStatusJSON{e.Identity, e.Dimension, e.Turns, e.Lacking, e.NoVector})
	}
	return h, es
}

// ollamaDiagnosis asks Ollama for its version and the model, within
// doctorProbe. An answer with a status (404 for a model not pulled) means
// Ollama is reachable.
func ollamaDiagnosis(ctx context.Context, cfg config.Config) ollamaHealth {
	h := ollamaHealth{Host: cfg.Ollama.Host, Model: cfg.Embed.Model}
	o, err := embed.NewOllama(embed.Options{Provider: "ollama", Model: cfg.Embed.Model, Host: cfg.Ollama.Host, Timeout: doctorProbe})
	if err != nil {
		h.Error = err.Error()
		return h
	}
	h.Host = o.Host()
	probe, cancel := context.WithTimeout(ctx, doctorProbe)
	defer cancel()
	err = o.Check(probe)
	var status api.StatusError
	switch {
	case err == nil:
		h.Reachable, h.ModelPulled = true, ptr(true)
		h.ContextLength, h.Dimension = o.ContextLength(), o.Dimension()
	case errors.As(err, &status):
		h.Reachable = true
		h.ModelPulled = ptr(status.StatusCode != http.StatusNotFound)
		h.Error = err.Error()
	case errors.Is(err, context.DeadlineExceeded):
		h.Error = fmt.Sprintf("no answer from %s within %s", h.Host, doctorProbe)
	default:
		h.Error = err.Error()
	}
	return h
}

// ollamaConsequence says what an unreachable Ollama means for the
// configured provider.
func ollamaConsequence(provider string) string {
	switch provider {
	case "builtin":
		return "not needed, embed.provider is builtin"
	case "ollama":
		return "index and recall fail until it runs ('ollama serve'), or set embed.provider to auto or builtin"
	}
	return "deja embeds with its built-in embedder; start it with 'ollama serve' to use it"
}

func ptr[T any](v T) *T { return &v }

// serveDiagnosis reads serve.json, which 'deja serve' writes while it
// runs, and dials the address it names: a file left by a killed server
// names an address nobody answers at.
func serveDiagnosis(ctx context.Context, dir string) serveHealth {
	h := serveHealth{File: filepath.Join(dir, serve.InfoFile)}
	info, err := serve.ReadInfo(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return h
	}
	if err != nil {
		h.Error = err.Error()
		return h
	}
	h.URL, h.PID = info.URL, info.PID
	if !info.Started.IsZero() {
		h.Started = info.Started.Format(time.RFC3339)
	}
	at := info.URL
	if info.Socket != "" {
		at = info.Socket
	}
	if err := serve.Reach(ctx, info); err != nil {
		h.Error = fmt.Sprintf("nothing that knows its secret answers at %s: a server that stopped without removing %s (pid %d)", at, h.File, info.PID)
		return h
	}
	h.URL = at
	h.Running = true
	if info.DataDir != "" && filepath.Clean(info.DataDir) != filepath.Clean(dir) {
		h.Error = fmt.Sprintf("it serves the store in %s, not this one", info.DataDir)
	}
	return h
}

// lockDiagnosis tests the index lock by taking it for an instant; the pid
// in the file is meaningful only while someone holds it.
func lockDiagnosis(ctx context.Context, dir string) lockHealth {
	h := lockHealth{Path: filepath.Join(dir, store.LockFile)}
	if _, err := os.Stat(dir); err != nil {
		return h
	}
	l, err := store.AcquireLock(ctx, dir, store.LockOptions{})
	if err == nil {
		l.Unlock()
		return h
	}
	h.Held = errors.Is(err, store.ErrLocked)
	if data, rerr := os.ReadFile(h.Path); rerr == nil {
		h.PID, _ = strconv.Atoi(strings.TrimSpace(string(data)))
	}
	return h
}

func printDoctor(io *IO, rep doctorReport) {
	w := io.Out
	cfgFile := rep.ConfigFile
	if cfgFile == "" {
		cfgFile = "none (defaults and DEJA_* variables)"
	}
	fmt.Fprintf(w, "config      %s\n", cfgFile)

	if len(rep.Sources) == 0 {
		fmt.Fprintln(w, "sources     none found: 'deja sources' says where deja looked")
	}
	for i, s := range rep.Sources {
		label := ""
		if i == 0 {
			label = "sources"
		}
		fmt.Fprintf(w, "%-11s %s (%s; %s)\n", label, quote.Line(s.Path), formatSize(s.Size), quote.Line(s.label))
	}
	if len(rep.SwitchedOff) > 0 {
		// Without this, a harness switched off in a config file and
		// forgotten looks like one that found nothing.
		fmt.Fprintf(w, "            switched off: %s\n", strings.Join(rep.SwitchedOff, ", "))
	}
	for _, warn := range rep.SourceWarnings {
		fmt.Fprintf(w, "            warning: %s\n", quote.Line(warn))
	}

	st := rep.Store
	switch {
	case st.Error != "":
		fmt.Fprintf(w, "store       %s: %s\n", st.Path, st.Error)
	case !st.Exists:
		fmt.Fprintf(w, "store       %s: not created yet; 'deja index' creates it\n", st.Path)
	default:
		fmt.Fprintf(w, "store       %s (%s): %s, %s, %s, %d forgotten\n",
			st.Path, formatSize(st.Bytes), words.Nouns(st.Files, "history", "histories"), words.Count(st.Sessions, "session"), words.Count(st.Turns, "turn"), st.Forgotten)
		if len(rep.Embedders) == 0 && st.Turns > 0 {
			fmt.Fprintf(w, "vectors     none: %s %s vectors; 'deja index' embeds them\n", words.AllOf(st.Turns, "turn"), words.Verb(st.Turns, "lack"))
		}
		for _, e := range rep.Embedders {
			fmt.Fprintf(w, "vectors     %s: %s embedded, %d %s vectors", e.Identity, words.Count(e.Turns, "turn"), e.Lacking, words.Verb(e.Lacking, "lack"))
			if e.NoVector > 0 {
				fmt.Fprintf(w, ", %d have none (the model refused them even cut shorter)", e.NoVector)
			}
			fmt.Fprintln(w)
		}
	}
	switch {
	case len(st.Damage) > 0:
		fmt.Fprintf(w, "integrity   DAMAGED: '%s' moves the store aside and rebuilds it from the histories\n", store.RebuildCommand)
		for _, d := range st.Damage {
			fmt.Fprintf(w, "            %s\n", d)
		}
	case st.Exists && st.Error == "":
		fmt.Fprintln(w, "integrity   ok: the database, the keyword index, the turns' hashes and the vector segments check out")
	}

	fmt.Fprintf(w, "embedder    embed.provider %s, embed.model %s\n", rep.Embed.Provider, rep.Embed.Model)
	o := rep.Ollama
	switch {
	case o.Reachable && o.ModelPulled != nil && *o.ModelPulled:
		fmt.Fprintf(w, "ollama      reachable at %s, model %s pulled", o.Host, o.Model)
		if o.ContextLength > 0 {
			fmt.Fprintf(w, " (%d-token context: longer texts are cut to fit; %d-d)", o.ContextLength, o.Dimension)
		}
		fmt.Fprintln(w)
	case o.Reachable && o.ModelPulled != nil:
		fmt.Fprintf(w, "ollama      reachable at %s, model %s NOT pulled: run 'ollama pull %s'\n", o.Host, o.Model, o.Model)
	case o.Reachable:
		fmt.Fprintf(w, "ollama      reachable at %s: %s\n", o.Host, o.Error)
	default:
		fmt.Fprintf(w, "ollama      not reachable at %s: %s\n", o.Host, ollamaConsequence(rep.Embed.Provider))
	}

	sv := rep.Serve
	switch {
	case sv.Running && sv.Error != "":
		fmt.Fprintf(w, "serve       running at %s (pid %d), but %s\n", sv.URL, sv.PID, sv.Error)
	case sv.Running:
		fmt.Fprintf(w, "serve       running at %s (pid %d)\n", sv.URL, sv.PID)
	case sv.Error != "":
		fmt.Fprintf(w, "serve       not running: %s\n", sv.Error)
	default:
		fmt.Fprintln(w, "serve       not running")
	}

	switch {
	case rep.Lock.Held && rep.Lock.PID > 0:
		fmt.Fprintf(w, "lock        held by pid %d (an index or forget is writing the store)\n", rep.Lock.PID)
	case rep.Lock.Held:
		fmt.Fprintln(w, "lock        held by another deja")
	default:
		fmt.Fprintln(w, "lock        free")
	}
	printCleanup(w, rep.Cleanup)
	printAgents(w, rep.Agents, rep.AgentsDeja)
}
