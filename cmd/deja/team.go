package main

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/deja-dev/deja/config"
	"github.com/deja-dev/deja/embed"
	"github.com/deja-dev/deja/internal/words"
	"github.com/deja-dev/deja/memory/store"
	"github.com/deja-dev/deja/team"
)

func newTeamCmd(io *IO) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "team",
		Short: "Share chosen projects' memory with other machines and people over NATS",
		Long: `Team memory shares the turns of the projects listed in team.projects,
already redacted, through a NATS JetStream server (team.url), and folds
what others shared into this store, embedded here. Nothing is shared until
team.url and team.projects are set; with team.url alone, this store folds
in the team's turns and shares none. A forget of a session this machine
shared is sent as a tombstone and removes it everywhere; a forget of a
colleague's session stays here.`,
		Example: `  DEJA_TEAM_URL=nats://127.0.0.1:4222 DEJA_TEAM_PROJECTS=~/src/api deja team sync
  deja team status --json
  deja team serve-dev`,
	}
	cmd.AddCommand(newTeamSyncCmd(io), newTeamStatusCmd(io), newTeamServeDevCmd(io))
	return cmd
}

// teamOptions turns the configuration into a member's options.
func teamOptions(cfg config.Config) team.Options {
	return team.Options{
		URL: cfg.Team.URL, Creds: cfg.Team.Creds, CA: cfg.Team.CA, Name: cfg.Team.Name, User: cfg.Team.User, Projects: cfg.Team.Projects, Replicas: cfg.Team.Replicas,
		Version: versionString(), Budget: cfg.Chunk.Budget,
		Lock: store.LockOptions{Wait: defaultLockWait},
	}
}

const noTeam = "no team configured: set team.url, and team.projects to share, in config.toml ([team] url = \"nats://…\", projects = [\"~/src/api\"]) or DEJA_TEAM_URL and DEJA_TEAM_PROJECTS"

// indexTeam is the team part of 'deja index --json': what the sync after
// the index sent and took in, or why it did not happen.
type indexTeam struct {
	Synced bool `json:"synced"`
	team.SyncReport
	Error string `json:"error,omitempty"`
}

// syncAfterIndex publishes and folds after an index when a team is
// configured (nil when none is). Failing to reach the team does not fail
// the index: the run's result stands, and one warning says what to check.
func syncAfterIndex(ctx context.Context, io *IO, cfg config.Config, sto *store.Store, emb embed.Embedder) *indexTeam {
	if !cfg.Team.Enabled() {
		return nil
	}
	opts := teamOptions(cfg)
	opts.Embedder = emb
	out := &indexTeam{}
	m, err := team.Connect(ctx, sto, opts)
	if err == nil {
		out.SyncReport, err = m.Sync(ctx)
		m.Close()
	}
	if err != nil {
		out.Error = err.Error()
		fmt.Fprintf(io.Err, "deja: warning: the index stands, but the team was not synced: %v; check team.url and the server, then run 'deja team sync'\n", oneLineError(err))
		return out
	}
	out.Synced = true
	warnRefused(io, out.Folded)
	return out
}

// warnRefused says that a fold refused messages that named sessions their
// senders did not publish: someone tried to write into, or forget, a
// session not theirs.
func warnRefused(io *IO, rep team.FoldReport) {
	if rep.Refused > 0 {
		fmt.Fprintf(io.Err, "deja: warning: %d team messages refused: each named a session its sender did not publish (a member adds to and forgets only its own sessions)\n", rep.Refused)
	}
}

// oneLineError keeps a warning on one line.
func oneLineError(err error) string { return strings.Join(strings.Fields(err.Error()), " ") }

func connectTeam(cmd *cobra.Command, io *IO, embed bool) (*team.Member, func(), error) {
	cfg, sto, err := openConfigured(cmd)
	if err != nil {
		return nil, nil, err
	}
	if !cfg.Team.Enabled() {
		sto.Close()
		return nil, nil, exitError{code: exitFailed, msg: noTeam}
	}
	opts := teamOptions(cfg)
	if embed {
		opts.Embedder, _ = selectEmbedder(cmd.Context(), io, cfg)
	}
	m, err := team.Connect(cmd.Context(), sto, opts)
	if err != nil {
		sto.Close()
		return nil, nil, err
	}
	return m, func() { m.Close(); sto.Close() }, nil
}

func newTeamSyncCmd(io *IO) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "sync",
		Short: "Publish this machine's new shared turns and fold in the team's",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			m, done, err := connectTeam(cmd, io, true)
			if err != nil {
				return err
			}
			defer done()
			rep, err := m.Sync(cmd.Context())
			if err != nil {
				return err
			}
			warnRefused(io, rep.Folded)
			if asJSON {
				return teamJSON(io, rep)
			}
			fmt.Fprintf(io.Out, "published %s and %s\n", words.Count(rep.Published.Turns, "turn"), words.Count(rep.Published.Tombstones, "tombstone"))
			fmt.Fprintf(io.Out, "folded    %s and %s from %s", words.Count(rep.Folded.Turns, "turn"), words.Count(rep.Folded.Tombstones, "tombstone"), words.Count(rep.Folded.Messages, "message"))
			if rep.Folded.Dropped > 0 {
				fmt.Fprintf(io.Out, " (%s of forgotten sessions dropped)", words.Count(rep.Folded.Dropped, "turn"))
			}
			fmt.Fprintln(io.Out)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON for scripts and agents")
	return cmd
}

func newTeamStatusCmd(io *IO) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show the team's server, what is shared, and how far behind this machine is",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := loadConfig(cmd, nil)
			if err != nil {
				return err
			}
			if !cfg.Team.Enabled() {
				if asJSON {
					// Scripts read a list, empty or not, never null.
					projects := append([]string{}, cfg.Team.Projects...)
					return teamJSON(io, map[string]any{"configured": false, "url": cfg.Team.URL, "projects": projects})
				}
				fmt.Fprintln(io.Out, noTeam)
				return nil
			}
			m, done, err := connectTeam(cmd, io, false)
			if err != nil {
				return err
			}
			defer done()
			st, err := m.Status(cmd.Context())
			if err != nil {
				return err
			}
			if asJSON {
				return teamJSON(io, struct {
					Configured bool `json:"configured"`
					team.Status
				}{true, st})
			}
			printTeamStatus(io, st)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON for scripts and agents")
	return cmd
}

func printTeamStatus(io *IO, st team.Status) {
	w := io.Out
	var shared []string
	for _, p := range st.Projects {
		shared = append(shared, homeShort(p))
	}
	fmt.Fprintf(w, "team        %s on %s (stream %s, %s, %s)\n", st.Team, st.Server, st.Stream, words.Count(int(st.Messages), "message"), words.Count(st.Replicas, "replica"))
	fmt.Fprintf(w, "this        %s, as %s, folding through %s\n", st.Machine, st.User, strings.Join(st.Consumers, ", "))
	if len(shared) == 0 {
		shared = []string{"nothing; this store folds in the whole team"}
	}
	fmt.Fprintf(w, "shared      %s\n", strings.Join(shared, ", "))
	fmt.Fprintf(w, "sent        %s of %s, %s; %s %s for 'deja team sync'\n", words.Count(st.Counts.SentTurns, "turn"), words.Count(st.Counts.SentSessions, "session"), words.Count(st.Counts.Tombstones, "tombstone"), words.Count(st.Unsent, "turn"), words.Verb(st.Unsent, "wait"))
	fmt.Fprintf(w, "received    %s of %s; %s %s to be folded\n", words.Count(st.Counts.ReceivedTurns, "turn"), words.Count(st.Counts.ReceivedSessions, "session"), words.Count(int(st.Lag), "message"), words.Verb(int(st.Lag), "wait"))
}

func newTeamServeDevCmd(io *IO) *cobra.Command {
	var port int
	cmd := &cobra.Command{
		Use:   "serve-dev",
		Short: "Run a local NATS server with JetStream for trying team memory",
		Long: `Run a NATS server with JetStream on 127.0.0.1 until interrupted, keeping its
stream under the data directory (nats-dev). It has no TLS and no accounts:
it is for trying team memory on one machine; a real team runs nats-server
with TLS and accounts (see docs/team.md).

deja does not carry the server itself (it would make the binary half as big
again): serve-dev runs DEJA_NATS_SERVER if set, else nats-server on PATH,
else installs the release deja is tested with (` + team.NATSServerModule + `)
once with Go, into the data directory. A deja built with
'go install -tags devnats' runs it inside the process instead.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := loadConfig(cmd, nil)
			if err != nil {
				return err
			}
			s, err := team.DevServer(cmd.Context(), filepath.Join(cfg.DataDir, "nats-dev"), port, io.Err)
			if err != nil {
				return err
			}
			defer s.Shutdown()
			fmt.Fprintf(io.Out, "serving %s; set team.url (DEJA_TEAM_URL) to it; Ctrl-C stops\n", s.ClientURL())
			<-cmd.Context().Done()
			return serveDevStopped(cmd.Context())
		},
	}
	cmd.Flags().IntVar(&port, "port", 4222, "port to listen on, on 127.0.0.1 (0: any free port)")
	return cmd
}

// serveDevStopped is nil for a stop the user asked for.
func serveDevStopped(ctx context.Context) error {
	if ctx.Err() == context.Canceled {
		return nil
	}
	return ctx.Err()
}

func teamJSON(io *IO, v any) error {
	enc := json.NewEncoder(io.Out)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
