package team

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/nats-io/nats.go"
)

// A permissions violation ends the requests watching the subject it
// names, and only those; other connection errors end nothing.
func TestRefusalEndsOnlyItsSubject(t *testing.T) {
	var r refusals
	api, stopAPI := r.watch(context.Background(), func(s string) bool { return s == "deja.core.api.x" })
	defer stopAPI()
	web, stopWeb := r.watch(context.Background(), func(s string) bool { return s == "deja.core.web.x" })
	defer stopWeb()

	r.handle(nil, nil, errors.New(`nats: slow consumer, messages dropped on connection [1] for subscription on "deja.core.api.x"`))
	r.handle(nil, nil, fmt.Errorf("%w: %s", nats.ErrPermissionViolation, `Permissions Violation for Subscription to "deja.core.other" using queue "q"`))
	if api.Err() != nil || web.Err() != nil {
		t.Fatalf("ended by another subject's refusal or another error: api %v, web %v", api.Err(), web.Err())
	}
	r.handle(nil, nil, fmt.Errorf("%w: %s", nats.ErrPermissionViolation, `Permissions Violation for Publish to "deja.core.api.x" on connection [9]`))
	var re *refusedError
	if !errors.As(context.Cause(api), &re) || re.subject != "deja.core.api.x" {
		t.Errorf("api's cause %v, want the refusal of deja.core.api.x", context.Cause(api))
	}
	if web.Err() != nil {
		t.Errorf("web ended by api's refusal: %v", context.Cause(web))
	}
	if err := refused(api, errors.New("nats: timeout")); !errors.Is(err, errRefused) {
		t.Errorf("refused(api, timeout) = %v, want the refusal", err)
	}
	if err := refused(web, nil); err != nil {
		t.Errorf("refused(web, nil) = %v", err)
	}
	stopWeb()
	if len(r.waiting) != 1 {
		t.Errorf("%d watches after one stopped, want 1", len(r.waiting))
	}
}
