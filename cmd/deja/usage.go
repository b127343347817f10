package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// markUsageErrors makes every mistake in how a command was typed (an
// unknown flag, a missing argument, an unknown command) end with exit 2
// and the command's usage line, told apart from what went wrong running it.
func markUsageErrors(root *cobra.Command) {
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usageError(c, err)
	})
	if root.Args == nil {
		root.Args = cobra.NoArgs // 'deja frob' is an unknown command
	}
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		if args := c.Args; args != nil {
			c.Args = func(cmd *cobra.Command, a []string) error {
				if err := args(cmd, a); err != nil {
					return usageError(cmd, err)
				}
				return nil
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// usageError is err with the usage line, and for a recall query that
// looks like a flag, how to search for it.
func usageError(c *cobra.Command, err error) error {
	msg := err.Error()
	if c.Name() == "recall" && strings.HasPrefix(msg, "unknown") && strings.Contains(msg, "flag") {
		msg += "\nto search for text that starts with -, end the flags with --: deja recall -- " + flagOf(msg)
	}
	return exitError{code: exitFailed, msg: fmt.Sprintf("%s\nusage: %s\n'%s --help' says more", msg, c.UseLine(), c.CommandPath())}
}

// flagOf picks the flag out of pflag's "unknown flag: --x" message.
func flagOf(msg string) string {
	if i := strings.LastIndex(msg, ": "); i >= 0 {
		f := msg[i+2:]
		if strings.HasPrefix(f, "-") {
			return "'" + f + "'"
		}
	}
	return "'--QUERY'"
}
