package team

import (
	"context"
	"fmt"
	"github.com/deja-dev/deja/memory/index"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A member who is not granted a project receives none of it: asking for
// it is refused, and what she is granted holds none of its turns.
func TestUngrantedMemberReceivesNothing(t *testing.T) {
	t.Parallel() // its time is spent waiting on servers, not computing
	ctx := context.Background()
	// The README's layout, mallory granted web as bob is granted api;
	// alice is the admin, who may do anything.
	addr := startReadmeServer(t, [2]string{"mallory", "web"})

	alice := newPeer(t, history(2, 2, "alice"))
	a := alice.connect(t, "nats://admin:a@"+addr, "alice")
	if rep := sync(t, a); rep.Published.Turns != 4 {
		t.Fatalf("alice published %d turns of api, want 4", rep.Published.Turns)
	}

	// Mallory asks for api, which she is not granted: refused, nothing folded.
	mallory := newPeer(t, "")
	m := mallory.connect(t, "nats://mallory:b@"+addr, "mallory")
	if _, err := m.Sync(ctx); err == nil {
		t.Error("mallory's sync of api, which she is not granted, succeeded")
	} else if !strings.Contains(err.Error(), "refused") || strings.Contains(err.Error(), "deadline") {
		// The server refuses at once; the member hears that, not a timeout.
		t.Errorf("mallory's sync of api: %v, want the server's refusal", err)
	}
	if n := turnCount(t, mallory.store); n != 0 {
		t.Errorf("mallory holds %d turns of a project she is not granted", n)
	}

	// Mallory's own project, web, is granted: she shares into it and
	// folds it, and still holds nothing of api.
	web := filepath.Join(t.TempDir(), "web")
	if err := os.MkdirAll(web, 0o755); err != nil {
		t.Fatal(err)
	}
	hist := filepath.Join(web, ".aider.chat.history.md")
	if err := os.WriteFile(hist, []byte(history(1, 1, "mallory")), 0o644); err != nil {
		t.Fatal(err)
	}
	mallory.project = web
	m2 := mallory.connect(t, "nats://mallory:b@"+addr, "mallory")
	if _, err := index.Index(ctx, mallory.store, indexOpts(hist, mallory)); err != nil {
		t.Fatal(err)
	}
	rep := sync(t, m2)
	if rep.Published.Turns != 1 || rep.Folded.Turns != 0 {
		t.Errorf("mallory's sync of web = %+v, want her one turn published and nothing folded", rep)
	}
	for id := range sessions(t, mallory.store) {
		if from, _, _ := mallory.store.Origin(ctx, id); from != "" {
			t.Errorf("mallory received session %s from %s", id, from)
		}
	}
	if n := turnCount(t, mallory.store); n != 1 {
		t.Errorf("mallory holds %d turns, want her own one", n)
	}
	// A store whose shared project she is not granted publishes nothing
	// of it, and she hears the server's refusal, not a timeout.
	other := newPeer(t, history(1, 1, "mallory"))
	o := other.connect(t, "nats://mallory:b@"+addr, "mallory")
	if _, err := o.Publish(ctx); err == nil || !strings.Contains(err.Error(), "refused") || strings.Contains(err.Error(), "deadline") {
		t.Errorf("mallory's publish of api: %v, want the server's refusal", err)
	}
	// And she cannot publish under alice's subjects.
	if _, err := m2.js.Publish(ctx, fmt.Sprintf("deja.core.web.alice.%s", "forged"), []byte("{}")); err == nil {
		t.Error("mallory published under alice's subjects")
	}
}
