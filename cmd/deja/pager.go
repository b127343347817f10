package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"golang.org/x/term"
)

// pageOut prints text through a pager when stdout is a terminal and the
// text is longer than the terminal: $PAGER, else 'less -R' (colour kept,
// the screen left as it was once less exits). Piped, or with --no-pager,
// the text goes to stdout as it is; a pager that cannot start is passed
// over.
func pageOut(ctx context.Context, io *IO, text string, noPager bool) error {
	pager, set := os.LookupEnv("PAGER")
	cmdline := pagerCommand(io.OutTTY && !noPager, text, pager, set, terminalHeight())
	if cmdline == nil {
		_, err := fmt.Fprint(io.Out, text)
		return err
	}
	cmd := exec.CommandContext(ctx, cmdline[0], cmdline[1:]...)
	cmd.Stdin = strings.NewReader(text)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	// less: quit when the text fits after all, keep colour, leave no
	// screen behind (LESS set by the user wins).
	if os.Getenv("LESS") == "" {
		cmd.Env = append(os.Environ(), "LESS=FRX")
	}
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			_, err := fmt.Fprint(io.Out, text) // no such pager: print it
			return err
		}
	}
	return nil
}

// pagerCommand is the pager to run, nil when the text goes straight to
// stdout: paging off (not a terminal, --no-pager), PAGER set empty or to
// cat, or a text that fits the terminal's height.
func pagerCommand(paging bool, text, pager string, pagerSet bool, height int) []string {
	if !paging || (height > 0 && bytes.Count([]byte(text), []byte("\n")) < height) {
		return nil
	}
	if pager == "" {
		if pagerSet {
			return nil // PAGER= turns paging off
		}
		pager = "less -R"
	}
	fields := strings.Fields(pager)
	if len(fields) == 0 || fields[0] == "cat" {
		return nil
	}
	return fields
}

func terminalHeight() int {
	if _, h, err := term.GetSize(int(os.Stdout.Fd())); err == nil {
		return h
	}
	return 0
}
