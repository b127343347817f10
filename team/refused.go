package team

import (
	"context"
	"errors"
	"strings"
	syncpkg "sync"

	"github.com/nats-io/nats.go"
)

// refusals hands a request in flight the server's refusal of its subject.
// A server refuses a member's request for what it is not granted by an
// error on the connection, apart from the request, which would otherwise
// wait out its timeout: a member not granted a project waited ten seconds
// to hear "context deadline exceeded".
type refusals struct {
	mu      syncpkg.Mutex
	waiting map[*refusalWait]struct{}
}

type refusalWait struct {
	match  func(subject string) bool
	cancel context.CancelCauseFunc
}

// errRefused is what a request's end is when the server refused its
// subject to this member; a *refusedError says which subject.
var errRefused = errors.New("the server refused this member")

type refusedError struct{ subject string }

func (e *refusedError) Error() string        { return errRefused.Error() }
func (e *refusedError) Is(target error) bool { return target == errRefused }

// handle is the connection's error handler: a permissions violation ends
// every request waiting on the subject it names. Other errors are the
// connection's own (a reconnect, a slow consumer) and end nothing; the
// request that meets them reports them.
func (r *refusals) handle(_ *nats.Conn, _ *nats.Subscription, err error) {
	if !errors.Is(err, nats.ErrPermissionViolation) {
		return
	}
	subject, ok := refusedSubject(err.Error())
	if !ok {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for w := range r.waiting {
		if w.match(subject) {
			w.cancel(&refusedError{subject: subject})
		}
	}
}

// watch is ctx, ended with errRefused if the server refuses a subject
// match accepts while it is watched; stop ends the watch.
func (r *refusals) watch(ctx context.Context, match func(subject string) bool) (_ context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	w := &refusalWait{match: match, cancel: cancel}
	r.mu.Lock()
	if r.waiting == nil {
		r.waiting = map[*refusalWait]struct{}{}
	}
	r.waiting[w] = struct{}{}
	r.mu.Unlock()
	return ctx, func() {
		r.mu.Lock()
		delete(r.waiting, w)
		r.mu.Unlock()
		cancel(nil)
	}
}

// refusedSubject is the subject a permissions violation names:
// `Permissions Violation for Publish to "SUBJECT"` (or "Subscription to").
func refusedSubject(msg string) (string, bool) {
	_, rest, ok := strings.Cut(msg, ` to "`)
	if !ok {
		return "", false
	}
	subject, _, ok := strings.Cut(rest, `"`)
	return subject, ok && subject != ""
}

// refused is err, or errRefused where the server refused the request
// watched by ctx: what a member is told instead of a deadline.
func refused(ctx context.Context, err error) error {
	if cause := context.Cause(ctx); err != nil && errors.Is(cause, errRefused) {
		return cause
	}
	return err
}

// hasToken says whether subject holds name as one of its dot-separated
// tokens.
func hasToken(subject, name string) bool {
	for tok := range strings.SplitSeq(subject, ".") {
		if tok == name {
			return true
		}
	}
	return false
}
