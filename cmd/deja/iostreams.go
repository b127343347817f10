package main

import (
	"io"
	"os"
	"strconv"

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
	// InTTY reports a terminal on stdin, where a command may ask before
	// it changes what is not deja's (deja install).
	InTTY bool
	// Color draws colour and highlighting on stdout (see --color).
	Color bool
	// Quiet (--quiet) drops notices from stderr; Verbose (-v) shows each
	// one every time. Warnings and errors are always shown.
	Quiet, Verbose bool
	// Width is the terminal's width in columns (COLUMNS wins), 0 when
	// stdout is not a terminal and COLUMNS is unset: lines are then cut
	// at fixed lengths, as a script expects.
	Width int
}

func systemIO() *IO {
	io := &IO{
		In:     os.Stdin,
		Out:    os.Stdout,
		Err:    os.Stderr,
		ErrTTY: term.IsTerminal(int(os.Stderr.Fd())),
		OutTTY: term.IsTerminal(int(os.Stdout.Fd())),
		InTTY:  term.IsTerminal(int(os.Stdin.Fd())),
	}
	if io.OutTTY {
		if w, _, err := term.GetSize(int(os.Stdout.Fd())); err == nil && w > 0 {
			io.Width = w
		}
	}
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n > 0 {
		io.Width = n
	}
	return io
}
