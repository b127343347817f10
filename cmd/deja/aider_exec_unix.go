//go:build unix

package main

import (
	"fmt"
	"os"
	"syscall"
)

// execAider replaces deja with aider: same process, terminal and signals,
// as if the user had typed the aider command. It returns only on failure.
func execAider(bin string, argv []string) error {
	err := syscall.Exec(bin, argv, os.Environ())
	return fmt.Errorf("starting %s: %w", bin, err)
}
