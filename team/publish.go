package team

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/deja-dev/deja/memory/store"
)

// Headers deja sets on every message.
const (
	HeaderKind    = "Deja-Kind" // "turn" or "tombstone"
	HeaderOrigin  = "Deja-Origin"
	HeaderUser    = "Deja-User"
	HeaderHarness = "Deja-Harness"
	HeaderVersion = "Deja-Version"
)

const (
	kindTurn      = "turn"
	kindTombstone = "tombstone"
)

// publishPage is how many turns are read and published at a time.
const publishPage = 512

// PublishReport says what a publish sent.
type PublishReport struct {
	Turns      int `json:"turns"`
	Tombstones int `json:"tombstones"`
}

// Publish sends the team the shared projects' turns that are new or
// changed since the last publish, and a tombstone for every shared or
// received session forgotten here. A turn is recorded as sent only once
// the stream has acknowledged it, so an interrupted publish sends the rest
// next time; its message ID makes sending it twice store it once.
func (m *Member) Publish(ctx context.Context) (PublishReport, error) {
	rep, err := m.publish(ctx)
	return rep, masked(err)
}

func (m *Member) publish(ctx context.Context) (PublishReport, error) {
	var rep PublishReport
	tombs, err := m.store.UnsentTombstones(ctx)
	if err != nil {
		return rep, err
	}
	for _, t := range tombs {
		if err := m.publishTombstone(ctx, t); err != nil {
			return rep, err
		}
		rep.Tombstones++
	}
	var after int64
	for {
		turns, err := m.store.UnsentTurns(ctx, m.opts.Projects, after, publishPage)
		if err != nil || len(turns) == 0 {
			return rep, err
		}
		if err := m.publishTurns(ctx, turns); err != nil {
			return rep, err
		}
		if err := m.store.MarkSent(ctx, turns, m.subject); err != nil {
			return rep, err
		}
		rep.Turns += len(turns)
		after = turns[len(turns)-1].Row
	}
}

func (m *Member) subject(t store.SharedTurn) string {
	return sessionSubject(m.opts.Name, t.Project, m.opts.User, t.Session)
}

func (m *Member) header(kind, harness string) nats.Header {
	h := nats.Header{}
	h.Set(HeaderKind, kind)
	h.Set(HeaderOrigin, m.machine)
	h.Set(HeaderUser, m.opts.User)
	if harness != "" {
		h.Set(HeaderHarness, harness)
	}
	h.Set(HeaderVersion, m.opts.Version)
	return h
}

// publishTurns sends a page of turns asynchronously and waits for every
// acknowledgement.
func (m *Member) publishTurns(ctx context.Context, turns []store.SharedTurn) error {
	futures := make([]jetstream.PubAckFuture, 0, len(turns))
	// A project this member is not granted is refused on the connection;
	// its acknowledgements would never come.
	subjects := map[string]bool{}
	for _, t := range turns {
		subjects[m.subject(t)] = true
	}
	ctx, stop := m.refused.watch(ctx, func(subject string) bool { return subjects[subject] })
	defer stop()
	for _, t := range turns {
		data, err := json.Marshal(t)
		if err != nil {
			return err
		}
		msg := &nats.Msg{Subject: m.subject(t), Data: data, Header: m.header(kindTurn, t.Harness)}
		id := t.Session + "/" + strconv.Itoa(t.Turn) + "/" + t.Hash
		f, err := m.js.PublishMsgAsync(msg, jetstream.WithMsgID(id))
		if err != nil {
			return fmt.Errorf("team: publishing: %w", err)
		}
		futures = append(futures, f)
	}
	for _, f := range futures {
		select {
		case <-f.Ok():
		case err := <-f.Err():
			return fmt.Errorf("team: publishing to %s: %w", f.Msg().Subject, err)
		case <-ctx.Done():
			var r *refusedError
			if errors.As(context.Cause(ctx), &r) {
				return fmt.Errorf("team: publishing to %s: %w, which is not granted it (an admin grants a project: docs/team.md; team.projects lists what this store shares)", r.subject, r)
			}
			return ctx.Err()
		}
	}
	return nil
}

// publishTombstone purges the session's subject, so no member that joins
// later receives its turns, and then leaves the tombstone there, so every
// member that has them forgets them. A member not granted the purge (a
// server cannot grant it per subject) still sends the tombstone: a member
// who joins later receives the turns and then forgets them.
func (m *Member) publishTombstone(ctx context.Context, t store.SharedTombstone) error {
	pctx, cancel := context.WithTimeout(ctx, m.opts.Timeout)
	pctx, stop := m.refused.watch(pctx, func(subject string) bool {
		return strings.HasPrefix(subject, "$JS.API.STREAM.PURGE.")
	})
	_ = m.stream.Purge(pctx, jetstream.WithPurgeSubject(t.Subject))
	stop()
	cancel()
	rctx, cancel := context.WithTimeout(ctx, m.opts.Timeout)
	defer cancel()
	data, err := json.Marshal(t)
	if err != nil {
		return err
	}
	msg := &nats.Msg{Subject: t.Subject, Data: data, Header: m.header(kindTombstone, "")}
	if _, err := m.js.PublishMsg(rctx, msg, jetstream.WithMsgID("tombstone/"+t.Session+"/"+m.machine)); err != nil {
		return fmt.Errorf("team: publishing the tombstone of %s: %w", t.Session, err)
	}
	return m.store.MarkTombstoneSent(ctx, t.Session)
}
