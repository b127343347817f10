package team

import (
	"context"
	"strings"
	"testing"
)

// The development server takes a team's stream: a member connects, shares
// and reads its status back.
func TestDevServerCarriesATeam(t *testing.T) {
	s, err := DevServer(t.TempDir(), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown()
	if !strings.HasPrefix(s.ClientURL(), "nats://127.0.0.1:") {
		t.Errorf("dev server at %s, want loopback only", s.ClientURL())
	}
	alice := newPeer(t, history(1, 2, "alice"))
	m := alice.connect(t, s.ClientURL(), "alice")
	if rep := sync(t, m); rep.Published.Turns != 2 {
		t.Errorf("published %d turns, want 2", rep.Published.Turns)
	}
	st, err := m.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st.Messages != 2 || st.Lag != 0 || st.Unsent != 0 || st.Counts.SentTurns != 2 {
		t.Errorf("status = %+v, want 2 messages, all sent and folded", st)
	}
}
