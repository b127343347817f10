// Command deja turns coding agents' chat histories into memory that people
// and agents can search by meaning.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	os.Exit(run())
}

func run() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	io := systemIO()
	root := newRootCmd(io)
	if err := root.ExecuteContext(ctx); err != nil {
		var ex exitError
		if errors.As(err, &ex) {
			if ex.msg != "" {
				fmt.Fprintln(io.Err, "deja:", ex.msg)
			}
			return ex.code
		}
		fmt.Fprintln(io.Err, "deja:", err)
		return 1
	}
	return 0
}

// exitError ends a command with a given exit code and an optional message.
type exitError struct {
	code int
	msg  string
}

func (e exitError) Error() string { return e.msg }
