package main

import (
	"os"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/deja-dev/deja/serve"
)

// serviceWait bounds how long a script waits for a background service
// to come up or to go: generous, since the machine may be loaded; the
// script fails only when the service never does it.
const serviceWait = 2 * time.Minute

// waitServe waits until a service for the data directory answers with
// its proof.
func waitServe(ts *testscript.TestScript, neg bool, args []string) {
	explicit := len(args) == 2 && args[0] == "-explicit"
	if explicit {
		args = args[1:]
	}
	if neg || len(args) != 1 {
		ts.Fatalf("usage: waitserve [-explicit] DATADIR")
	}
	dir := ts.MkAbs(args[0])
	for end := time.Now().Add(serviceWait); ; time.Sleep(20 * time.Millisecond) {
		if err := serve.WaitServing(dir, time.Until(end), 20*time.Millisecond); err != nil {
			ts.Fatalf("%v", err)
		}
		// -explicit: the service serving is one a user started, not one
		// a recall started in the background.
		if info, err := serve.ReadInfo(dir); !explicit || (err == nil && !info.Auto) {
			return
		}
		if time.Now().After(end) {
			ts.Fatalf("no explicit deja serve took over %s within %s", dir, serviceWait)
		}
	}
}

// waitStopped waits until no service holds the data directory's lock,
// that is until its process has ended or let go, and checks that it took
// its serve.json and socket with it.
func waitStopped(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: waitstopped DATADIR")
	}
	dir := ts.MkAbs(args[0])
	for end := time.Now().Add(serviceWait); serve.Held(dir); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(end) {
			ts.Fatalf("the service for %s still runs after %s", dir, serviceWait)
		}
	}
	if _, err := serve.ReadInfo(dir); !os.IsNotExist(err) {
		ts.Fatalf("serve.json outlived the service: %v", err)
	}
}

// cmpRecall compares two files of 'deja recall --json' but for the time
// each took.
func cmpRecall(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: cmprecall FILE1 FILE2")
	}
	a := tookMS.ReplaceAllString(ts.ReadFile(args[0]), "")
	b := tookMS.ReplaceAllString(ts.ReadFile(args[1]), "")
	if (a == b) == neg {
		ts.Fatalf("%s and %s differ (took_ms aside):\n%s\n---\n%s", args[0], args[1], a, b)
	}
}
