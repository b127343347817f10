package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/deja-dev/deja/config"
	"github.com/deja-dev/deja/memory/store"
	"github.com/deja-dev/deja/serve"
)

// startWarm starts the shared service for cfg's data directory in the
// background after a recall found none, so that the next recall or hook
// is warm. It starts nothing when serve.autostart is off, when there is
// no store yet to serve, when the data directory cannot be written (a
// service keeps its lock and socket there), or when a service already
// holds the data directory's lock (serve.StartBackground), and never
// fails the recall.
func startWarm(io *IO, cfg config.Config) {
	if !cfg.Serve.Autostart {
		return
	}
	dataDir, err := filepath.Abs(cfg.DataDir)
	if err != nil {
		return
	}
	if _, err := os.Stat(filepath.Join(dataDir, store.DBFile)); err != nil || !store.Writable(dataDir) {
		return
	}
	exe, err := os.Executable()
	if err != nil {
		return
	}
	args := []string{os.Args[0], "serve", "--auto", "--data-dir", dataDir, "--idle", cfg.Serve.Idle.String()}
	env := append(os.Environ(), "DEJA_DATA_DIR="+dataDir)
	started, err := serve.StartBackground(dataDir, exe, args, env)
	switch {
	case err != nil:
		fmt.Fprintf(io.Err, "deja: could not start deja serve in the background (%v); recall works without it\n", err)
	case started && !io.Quiet:
		fmt.Fprintf(io.Err, "deja: started deja serve in the background for %s, so the next recall is warm; it exits after %s idle (serve.autostart = false turns this off)\n", dataDir, cfg.Serve.Idle)
	}
}
