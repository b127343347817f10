// Command deja turns coding agents' chat histories into memory that people
// and agents can search by meaning.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/deja-dev/deja/memory/store"
	"github.com/deja-dev/deja/quote"
)

func main() {
	os.Exit(run())
}

// signalGrace is how long a command has to stop after SIGINT or SIGTERM
// before deja exits anyway; a second signal exits at once. Every read
// and wait honours the cancellation, so this only bounds what does not.
const signalGrace = time.Second

func run() int {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	grace := &stopGrace{}
	grace.d.Store(int64(signalGrace))
	ctx = context.WithValue(ctx, stopGraceKey{}, grace)
	io := systemIO()
	var caught atomic.Value
	go func() {
		s := <-sigs
		caught.Store(s)
		cancel()
		select {
		case <-sigs:
		case <-time.After(time.Duration(grace.d.Load())):
		}
		fmt.Fprintf(io.Err, "deja: %s, stopping now\n", signalName(s))
		os.Exit(signalExitCode(s))
	}()

	root := newRootCmd(io)
	err := root.ExecuteContext(ctx)
	if s, ok := caught.Load().(os.Signal); ok {
		// Whatever the command made of its cancellation ("context
		// canceled"), the signal is what happened.
		if err != nil {
			fmt.Fprintf(io.Err, "deja: %s\n", signalName(s))
		}
		return signalExitCode(s)
	}
	if err != nil {
		err = store.Explain(err)
		var ex exitError
		if errors.As(err, &ex) {
			if ex.msg != "" {
				fmt.Fprintln(io.Err, "deja:", quote.Text(ex.msg))
			}
			return ex.code
		}
		// An error may name what a history holds (a session, a path):
		// it reaches the terminal inert.
		fmt.Fprintln(io.Err, "deja:", quote.Text(err.Error()))
		return exitFailed
	}
	return 0
}

// signalExitCode is the shell's code for a command a signal ended: 130
// for SIGINT, 143 for SIGTERM.
func signalExitCode(s os.Signal) int {
	if s == syscall.SIGTERM {
		return 128 + int(syscall.SIGTERM)
	}
	return 128 + int(syscall.SIGINT)
}

func signalName(s os.Signal) string {
	if s == syscall.SIGTERM {
		return "terminated"
	}
	return "interrupted"
}

// stopGrace is the time a command has to stop after a signal; a command
// that needs more (deja serve finishing its requests) says so with
// extendStopGrace.
type stopGrace struct{ d atomic.Int64 }

type stopGraceKey struct{}

// extendStopGrace gives the running command d to stop after a signal.
func extendStopGrace(ctx context.Context, d time.Duration) {
	if g, ok := ctx.Value(stopGraceKey{}).(*stopGrace); ok {
		g.d.Store(int64(d))
	}
}

// exitError ends a command with a given exit code and an optional message.
type exitError struct {
	code int
	msg  string
}

func (e exitError) Error() string { return e.msg }

// The exit codes deja ends with besides 0 (done, something found),
// exitRefused and the signals' 130 and 143; rootLong lists them all.
const (
	exitNothing = 1 // nothing found (recall, sessions), as grep and rg
	exitFailed  = 2 // a usage mistake or an error, said on stderr
)

// errNothingFound ends a command that printed that it found nothing.
var errNothingFound = exitError{code: exitNothing}
