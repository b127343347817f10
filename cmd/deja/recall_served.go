package main

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/deja-dev/deja/config"
	"github.com/deja-dev/deja/embed"
	"github.com/deja-dev/deja/memory/recall"
	"github.com/deja-dev/deja/serve"
)

// recallServed asks a running 'deja serve' for this data directory, whose
// vectors are already loaded, and returns nil when there is none, it would
// answer with another embedder, or it failed: recall then reads the store
// itself. A live server is waited for however busy the machine is
// (serve.Client), so whether recall goes through it does not depend on
// timing. A serve.json that no server answers for (a
// killed server's, or one whose address another process took and cannot
// prove it knows the file's secret) is removed, and nothing is sent to
// whatever answers there. It also returns nil when the server refuses the
// request, as it refuses a --session the store does not hold: the store
// itself then says what is wrong, so the message and exit code are those
// of a recall without a server. Finding no server, it starts one in the
// background for the next recall (startWarm). Over TCP (a server without a socket) the
// token comes from DEJA_TOKEN.
func recallServed(ctx context.Context, io *IO, cfg config.Config, query string, mode recall.Mode, sc recall.Scope) *recall.Answer {
	if out := askServer(ctx, io, cfg, query, mode, sc, false); out != nil {
		return recallOf(out)
	}
	return nil
}

// askServer is recallServed's answer as the server sent it, with what it
// cut to keep the answer short (records_cut, results_cut), which the
// recall recallOf makes of it no longer holds.
func askServer(ctx context.Context, io *IO, cfg config.Config, query string, mode recall.Mode, sc recall.Scope, commits bool) *serve.RecallOutput {
	info, err := serve.ReadInfo(cfg.DataDir)
	if err != nil || !sameDir(info.DataDir, cfg.DataDir) {
		startWarm(io, cfg)
		return nil
	}
	if mode != recall.Keyword && !embedderFits(cfg.Embed, info.Embedder) {
		return nil
	}
	token := os.Getenv("DEJA_TOKEN")
	if info.Socket == "" && info.Token && token == "" {
		return nil
	}
	req := serve.RecallRequest{Query: query, Mode: string(mode), Limit: cfg.Recall.Limit, Project: sc.Project, Session: sc.Session,
		Harness: sc.Harness, IncludeSubagents: sc.Subagents, Mine: sc.Mine, From: sc.From, Commits: commits}
	if !sc.Since.IsZero() {
		req.Since = sc.Since.Format(time.RFC3339Nano)
	}
	if !sc.Until.IsZero() {
		req.Until = sc.Until.Format(time.RFC3339Nano)
	}
	out, err := serve.NewClient(info).Recall(ctx, token, req)
	if errors.Is(err, serve.ErrNotServing) {
		if removed, _ := serve.RemoveStaleInfo(cfg.DataDir, info); removed {
			var ue *url.Error
			if errors.As(err, &ue) {
				err = ue.Err
			}
			fmt.Fprintf(io.Err, "deja: removed a stale %s (%v)\n", filepath.Join(cfg.DataDir, serve.InfoFile), err)
		}
		startWarm(io, cfg)
		return nil
	}
	if err != nil {
		// A refused request is the store's to explain; any other failure
		// of a live server is said, never silent.
		if !errors.Is(err, serve.ErrRefused) {
			fmt.Fprintf(io.Err, "deja: the server at %s did not answer (%v): recalling from the store itself\n", servedAt(info), err)
		}
		return nil
	}
	if io.Verbose {
		// Said only when asked: a warm answer is the same answer.
		fmt.Fprintf(io.Err, "deja: recalled through deja serve at %s (%s)\n", servedAt(info), out.Embedder)
	}
	return out
}

// servedAt names where a server was reached.
func servedAt(info serve.Info) string {
	if info.Socket != "" {
		return info.Socket
	}
	return info.URL
}

func sameDir(a, b string) bool {
	a, errA := filepath.Abs(a)
	b, errB := filepath.Abs(b)
	return errA == nil && errB == nil && a == b
}

// embedderFits reports whether a server embedding with identity answers
// as this configuration would. With auto, the server's choice stands: it
// made the same choice when it started.
func embedderFits(e config.Embed, identity string) bool {
	ollama := "ollama:" + strings.TrimSuffix(e.Model, ":latest")
	switch e.Provider {
	case "builtin":
		return identity == embed.BuiltinIdentity
	case "ollama":
		return identity == ollama
	}
	return identity == embed.BuiltinIdentity || identity == ollama
}

// recallOf turns a server's answer back into the recall the printers take.
// Laid out again (serve.NewRecallOutput), it is the answer the server sent
// but for the counts of what the server cut, so 'deja recall --json'
// prints that answer as it came (reportRecall).
func recallOf(o *serve.RecallOutput) *recall.Answer {
	r := &recall.Answer{
		Query: o.Query, Mode: recall.Mode(o.Mode), RealizedMode: recall.Mode(o.RealizedMode),
		FallbackReason: o.FallbackReason, Embedder: o.Embedder, Note: o.Note, NotFound: o.NotFound,
		Took: time.Duration(o.TookMS) * time.Millisecond,
	}
	for _, h := range o.Results {
		res := recall.Result{
			SessionID: h.SessionID, Turn: h.Turn, Score: h.Score, History: h.History, Project: h.Project,
			Line: h.Line, User: h.User, Assistant: h.Assistant, Files: h.Files, Commands: h.Commands, From: h.From,
		}
		if h.Started != nil {
			res.Started, _ = time.Parse(time.RFC3339, *h.Started)
		}
		if h.KeywordRank != nil {
			res.KeywordRank = *h.KeywordRank
		}
		if h.SemanticRank != nil {
			res.SemanticRank = *h.SemanticRank
		}
		if h.Similarity != nil {
			res.Similarity = float32(*h.Similarity)
		}
		if c := h.Changed; c != nil {
			res.Changed, res.ChangedOf = c.Files, c.Of
		}
		if m := h.Mark; m != nil {
			res.Mark = &recall.Mark{Verdict: m.Verdict, Target: m.Target, Why: m.Why, By: m.By}
		}
		r.Results = append(r.Results, res)
	}
	return r
}
