package main

import (
	"io"
	"os"

	"golang.org/x/term"
)

// IO is where a command reads and writes; tests swap in buffers.
type IO struct {
	In  io.Reader
	Out io.Writer
	Err io.Writer
	// ErrTTY reports a terminal on stderr, where progress bars may go.
	ErrTTY bool
	// OutTTY reports a terminal on stdout.
	OutTTY bool
}

func systemIO() *IO {
	return &IO{
		In:     os.Stdin,
		Out:    os.Stdout,
		Err:    os.Stderr,
		ErrTTY: term.IsTerminal(int(os.Stderr.Fd())),
		OutTTY: term.IsTerminal(int(os.Stdout.Fd())),
	}
}
