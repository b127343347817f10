package team

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/deja-dev/deja/memory/store"
)

// foldBatch is how many messages are fetched and folded in one store
// transaction.
const foldBatch = 256

// FoldReport says what a fold took in.
type FoldReport struct {
	// Messages were read from the stream, this machine's own included.
	Messages int `json:"messages"`
	// Turns were new or changed and written to the store.
	Turns int `json:"turns"`
	// Tombstones forgot a session here.
	Tombstones int `json:"tombstones"`
	// Dropped turns belong to sessions forgotten here.
	Dropped int `json:"dropped"`
	// Refused turns and tombstones named a session that the member whose
	// subject they came on did not publish: a member adds to, replaces
	// and forgets only its own sessions. A session is the member's who
	// published it first in the stream; the turns of a later publisher
	// that were folded first are dropped and counted here.
	Refused int `json:"refused"`
}

// metaMachine is the consumer's metadata key naming the store it folds into.
const metaMachine = "deja-machine"

// consumerName is the member's durable consumer of one project, or of the
// whole team when project is empty: deja-USER-PROJECT or deja-USER. It is
// named by the member's user, so an account layout can grant each member
// its own consumers and no other's. USER and PROJECT are written with no
// "-" of their own (see nameEscaper), so no two members' names meet: bob's
// consumer of project api is deja-bob-api, and that of a member named
// bob-api who shares nothing is deja-bob_dapi, not the same one.
func consumerName(user, project string) string {
	name := "deja-" + nameEscaper.Replace(token(user))
	if project != "" {
		name += "-" + nameEscaper.Replace(projectToken(project))
	}
	return name
}

// nameEscaper writes a token without "-": "_" as "_u" and "-" as "_d".
var nameEscaper = strings.NewReplacer("_", "_u", "-", "_d")

// folded are what the member folds: the projects it shares, or the whole
// team ("") when it shares none.
func (m *Member) folded() []string {
	if len(m.opts.Projects) == 0 {
		return []string{""}
	}
	return m.opts.Projects
}

// filter is the subjects a consumer of folded reads.
func (m *Member) filter(project string) string {
	if project == "" {
		return teamSubjects(m.opts.Name)
	}
	return projectSubjects(m.opts.Name, project)
}

// consumer is the member's durable consumer of one shared project (or of
// the team), created the first time. There is one a project, each filtered
// to the project's subjects alone, so a server can grant reading per
// project: the filter is part of the request that creates the consumer,
// which the member's permissions allow or refuse. A consumer another store
// folds into is refused: two stores of one user would each receive only
// part of the team's messages.
func (m *Member) consumer(ctx context.Context, project string) (jetstream.Consumer, error) {
	ctx, cancel := context.WithTimeout(ctx, m.opts.Timeout)
	defer cancel()
	name, filter := consumerName(m.opts.User, project), m.filter(project)
	// A request for a consumer this member is not granted is refused on
	// the connection, not answered: the watch ends it then.
	ctx, stop := m.refused.watch(ctx, func(subject string) bool {
		return strings.HasPrefix(subject, "$JS.API.CONSUMER.") && hasToken(subject, name)
	})
	defer stop()
	notGranted := func(err error) error {
		return fmt.Errorf("team: consumer %s: %w, which is not granted %s (an admin grants a project: docs/team.md)", name, err, filter)
	}
	c, err := m.stream.Consumer(ctx, name)
	if err = refused(ctx, err); errors.Is(err, errRefused) {
		return nil, notGranted(err)
	}
	if err == nil {
		if other := c.CachedInfo().Config.Metadata[metaMachine]; other != "" && other != m.machine {
			return nil, fmt.Errorf("team: consumer %s folds into the store %s, not this one (%s): give each store a team.user of its own, or, if that store is gone, delete the consumer (nats consumer rm %s %s)",
				name, other, m.machine, streamName(m.opts.Name), name)
		}
	} else if !errors.Is(err, jetstream.ErrConsumerNotFound) {
		return nil, fmt.Errorf("team: consumer %s: %w (is this member granted it?)", name, err)
	}
	what := "the team"
	if project != "" {
		what = filepath.Base(project)
	}
	c, err = m.stream.CreateOrUpdateConsumer(ctx, jetstream.ConsumerConfig{
		Durable:       name,
		Description:   "deja team memory of " + what + " folded into " + m.machine,
		FilterSubject: filter,
		DeliverPolicy: jetstream.DeliverAllPolicy,
		AckPolicy:     jetstream.AckExplicitPolicy,
		AckWait:       m.opts.AckWait,
		MaxAckPending: 4 * foldBatch,
		Metadata:      map[string]string{metaMachine: m.machine},
	})
	if err = refused(ctx, err); errors.Is(err, errRefused) {
		return nil, notGranted(err)
	} else if err != nil {
		return nil, fmt.Errorf("team: consumer %s: %w (is this member granted %s?)", name, err, filter)
	}
	return c, nil
}

// Fold takes every message the machine's consumers have not confirmed into
// the store, until the consumer has nothing pending. A batch's messages
// are confirmed only after the store committed them, so a fold killed at
// any point loses nothing: the server delivers the rest again (after
// AckWait for those delivered but not confirmed), and folding a message
// twice stores it once.
func (m *Member) Fold(ctx context.Context) (FoldReport, error) {
	rep, err := m.fold(ctx, -1)
	return rep, masked(err)
}

// fold folds at most batches batches of each project (all of them when
// negative).
func (m *Member) fold(ctx context.Context, batches int) (FoldReport, error) {
	var rep FoldReport
	for _, p := range m.folded() {
		c, err := m.consumer(ctx, p)
		if err != nil {
			return rep, err
		}
		if err := m.foldConsumer(ctx, c, batches, &rep); err != nil {
			return rep, err
		}
	}
	return rep, nil
}

func (m *Member) foldConsumer(ctx context.Context, c jetstream.Consumer, batches int, rep *FoldReport) error {
	for i := 0; batches < 0 || i < batches; i++ {
		msgs, err := m.fetch(ctx, c)
		if err != nil {
			return err
		}
		if len(msgs) == 0 {
			done, err := m.caughtUp(ctx, c)
			if err != nil || done {
				return err
			}
			continue
		}
		if err := m.foldBatch(ctx, msgs, rep); err != nil {
			return err
		}
		for _, msg := range msgs {
			if err := msg.Ack(); err != nil {
				return fmt.Errorf("team: confirming a folded message: %w", err)
			}
		}
		if err := m.flush(ctx); err != nil {
			return err
		}
	}
	return nil
}

// flush waits until the server has every confirmation sent so far.
func (m *Member) flush(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, m.opts.Timeout)
	defer cancel()
	if err := m.nc.FlushWithContext(ctx); err != nil {
		return fmt.Errorf("team: confirming folded messages: %w", err)
	}
	return nil
}

// caughtUp reports whether the consumer has nothing left to deliver; it
// waits a little when messages delivered to an earlier, interrupted fold
// are still unconfirmed, until the server delivers them again.
func (m *Member) caughtUp(ctx context.Context, c jetstream.Consumer) (bool, error) {
	rctx, cancel := context.WithTimeout(ctx, m.opts.Timeout)
	defer cancel()
	info, err := c.Info(rctx)
	if err != nil {
		return false, fmt.Errorf("team: reading the consumer: %w", err)
	}
	if info.NumPending == 0 && info.NumAckPending == 0 {
		return true, nil
	}
	select {
	case <-ctx.Done():
		return false, ctx.Err()
	case <-time.After(100 * time.Millisecond):
	}
	return false, nil
}

// fetch takes the next batch. Right after a consumer is made, or after the
// node that led it was lost, a cluster may not have elected its leader
// yet, and the server has no responder for the request; that passes with
// the election, so fetch tries again for up to the member's timeout
// before it reports it.
func (m *Member) fetch(ctx context.Context, c jetstream.Consumer) ([]jetstream.Msg, error) {
	deadline := time.Now().Add(m.opts.Timeout)
	for {
		msgs, err := m.fetchOnce(ctx, c)
		if len(msgs) > 0 || !errors.Is(err, nats.ErrNoResponders) || !time.Now().Before(deadline) {
			return msgs, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func (m *Member) fetchOnce(ctx context.Context, c jetstream.Consumer) ([]jetstream.Msg, error) {
	batch, err := c.FetchNoWait(foldBatch)
	if err != nil {
		return nil, fmt.Errorf("team: fetching: %w", err)
	}
	var msgs []jetstream.Msg
	for msg := range batch.Messages() {
		msgs = append(msgs, msg)
	}
	if err := batch.Error(); err != nil && !errors.Is(err, jetstream.ErrNoMessages) && !errors.Is(err, nats.ErrTimeout) {
		return msgs, fmt.Errorf("team: fetching: %w", err)
	}
	return msgs, ctx.Err()
}

// foldBatch writes a batch in stream order: turns go to the store together,
// and a tombstone first writes the turns before it, so a session forgotten
// in the batch stays forgotten. A message's author is the user of the
// subject it was stored under, which the server lets only that member
// publish on; its headers are the sender's word and only informative.
func (m *Member) foldBatch(ctx context.Context, msgs []jetstream.Msg, rep *FoldReport) error {
	var turns []store.RemoteTurn
	flush := func() error {
		r, err := m.store.ImportTurns(ctx, turns, store.ImportOptions{Embedder: m.opts.Embedder, Budget: m.opts.Budget, Lock: m.opts.Lock})
		rep.Turns += r.Written
		rep.Dropped += r.Forgotten
		rep.Refused += r.Foreign
		turns = nil
		return err
	}
	for _, msg := range msgs {
		rep.Messages++
		h := msg.Headers()
		if h.Get(HeaderOrigin) == m.machine {
			continue
		}
		meta, err := msg.Metadata()
		if err != nil {
			return fmt.Errorf("team: reading a message: %w", err)
		}
		project, user, session, onSession := sessionSubjectOf(m.opts.Name, msg.Subject())
		switch h.Get(HeaderKind) {
		case kindTurn:
			var t store.SharedTurn
			if err := json.Unmarshal(msg.Data(), &t); err != nil || !t.ValidIDs() {
				// A message this deja cannot read, or whose session ID is
				// not of any harness's shape, is skipped, not folded half.
				continue
			}
			if !onSession || session != token(t.Session) || project != projectToken(t.Project) {
				rep.Refused++
				continue
			}
			t.Project = m.localProject(t.Project)
			turns = append(turns, store.RemoteTurn{SharedTurn: t, Origin: token(h.Get(HeaderOrigin)), Person: person(user, h.Get(HeaderUser)),
				Subject: msg.Subject(), Seq: meta.Sequence.Stream})
		case kindTombstone:
			var t store.SharedTombstone
			if err := json.Unmarshal(msg.Data(), &t); err != nil || t.Session == "" {
				continue
			}
			if !onSession || session != token(t.Session) {
				rep.Refused++
				continue
			}
			if err := flush(); err != nil {
				return err
			}
			forgot, err := m.store.ImportTombstone(ctx, t.Session, msg.Subject(), m.opts.Lock)
			if err != nil {
				return err
			}
			if forgot {
				rep.Tombstones++
			} else {
				rep.Refused++
			}
		}
	}
	return flush()
}

// person is who published on a subject whose user token is user: the
// message's Deja-User when it is that user (a name with a '.' travels as
// a token of its own), else the token.
func person(user, header string) string {
	if header != "" && token(header) == user {
		return header
	}
	return user
}

// localProject is the shared project directory here that a received
// project is checked out as (same base name), so a colleague's turns are
// recalled in the project they belong to; else the sender's directory.
func (m *Member) localProject(remote string) string {
	tok := projectToken(remote)
	for _, p := range m.opts.Projects {
		if projectToken(p) == tok {
			return filepath.Clean(p)
		}
	}
	return remote
}
