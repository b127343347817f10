//go:build windows

package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
)

// execAider runs aider on deja's console and exits with its code: Windows
// cannot replace a process. Ctrl-C reaches both; deja ignores it (main's
// signal context) and waits for aider.
func execAider(bin string, argv []string) error {
	c := exec.Command(bin, argv[1:]...)
	c.Stdin, c.Stdout, c.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := c.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exitError{code: exit.ExitCode()}
	}
	if err != nil {
		return fmt.Errorf("starting %s: %w", bin, err)
	}
	return nil
}
