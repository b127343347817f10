package team

import (
	"context"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/deja-dev/deja/memory/redact"
	"github.com/deja-dev/deja/memory/store"
)

// SyncReport says what one sync sent and took in.
type SyncReport struct {
	Published PublishReport `json:"published"`
	Folded    FoldReport    `json:"folded"`
}

// Sync publishes what is new here, then folds what is new from the team.
func (m *Member) Sync(ctx context.Context) (SyncReport, error) {
	var rep SyncReport
	var err error
	if rep.Published, err = m.Publish(ctx); err != nil {
		return rep, err
	}
	rep.Folded, err = m.Fold(ctx)
	return rep, err
}

// Status is where a member stands with its team.
type Status struct {
	Machine  string   `json:"machine"`
	User     string   `json:"user"`
	Team     string   `json:"team"`
	Server   string   `json:"server"`
	Stream   string   `json:"stream"`
	Projects []string `json:"projects"`
	// Consumers are the durable consumers this member folds through, the
	// names its account must be granted.
	Consumers []string `json:"consumers"`
	// Messages is how many messages the stream holds; Replicas its
	// replica count.
	Messages uint64 `json:"messages"`
	Replicas int    `json:"replicas"`
	// Lag is how many messages this machine has yet to fold.
	Lag uint64 `json:"lag"`
	// Unsent is how many turns of shared projects await publishing.
	Unsent int              `json:"unsent"`
	Counts store.TeamCounts `json:"counts"`
}

// Status reads the stream, this machine's consumer and the store.
func (m *Member) Status(ctx context.Context) (Status, error) {
	st, err := m.status(ctx)
	return st, masked(err)
}

func (m *Member) status(ctx context.Context) (Status, error) {
	st := Status{Machine: m.machine, User: m.opts.User, Team: m.opts.Name, Server: redact.URLCredentials(m.nc.ConnectedUrl()),
		Stream: streamName(m.opts.Name), Projects: append([]string{}, m.opts.Projects...)}
	rctx, cancel := context.WithTimeout(ctx, m.opts.Timeout)
	defer cancel()
	info, err := m.stream.Info(rctx)
	if err != nil {
		return st, fmt.Errorf("team: reading stream %s: %w", st.Stream, err)
	}
	st.Messages, st.Replicas = info.State.Msgs, info.Config.Replicas
	for _, p := range m.folded() {
		st.Consumers = append(st.Consumers, consumerName(m.opts.User, p))
		lag, err := m.lag(rctx, p)
		if err != nil {
			return st, err
		}
		st.Lag += lag
	}
	unsent, err := m.store.UnsentTurns(ctx, m.opts.Projects, 0, 1<<20)
	if err != nil {
		return st, err
	}
	st.Unsent = len(unsent)
	st.Counts, err = m.store.TeamCounts(ctx)
	return st, err
}

// lag is how many messages of a project (of the team, when project is
// empty) this member has yet to fold.
func (m *Member) lag(ctx context.Context, project string) (uint64, error) {
	c, err := m.stream.Consumer(ctx, consumerName(m.opts.User, project))
	if errors.Is(err, jetstream.ErrConsumerNotFound) {
		// Never folded: everything on the project's subjects is to come.
		info, err := m.stream.Info(ctx, jetstream.WithSubjectFilter(m.filter(project)))
		if err != nil {
			return 0, fmt.Errorf("team: reading stream %s: %w", streamName(m.opts.Name), err)
		}
		var n uint64
		for _, c := range info.State.Subjects {
			n += c
		}
		return n, nil
	}
	if err != nil {
		return 0, fmt.Errorf("team: reading this machine's consumer: %w", err)
	}
	ci, err := c.Info(ctx)
	if err != nil {
		return 0, fmt.Errorf("team: reading this machine's consumer: %w", err)
	}
	return ci.NumPending + uint64(ci.NumAckPending), nil
}
