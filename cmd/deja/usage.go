package main

import (
	"fmt"
	"strconv"
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
		if c != root && c.HasSubCommands() && !c.Runnable() {
			// A group of commands ('deja team') printed its help and
			// exited 0 for any word after it: a mistyped command is an
			// unknown command here too.
			c.RunE = func(cmd *cobra.Command, args []string) error {
				if len(args) == 0 {
					return cmd.Help()
				}
				return usageError(cmd, fmt.Errorf("unknown command %q for %q", args[0], cmd.CommandPath()))
			}
		}
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
	if name, ok := strings.CutPrefix(msg, "unknown command "); ok && c.HasSubCommands() {
		if name, err := strconv.Unquote(strings.Fields(name)[0]); err == nil {
			msg += didYouMean(c, name)
		}
	}
	if c.Name() == "recall" && strings.HasPrefix(msg, "unknown") && strings.Contains(msg, "flag") {
		msg += "\nto search for text that starts with -, end the flags with --: deja recall -- " + flagOf(msg)
	}
	return exitError{code: exitFailed, msg: fmt.Sprintf("%s\nusage: %s\n'%s --help' says more", msg, c.UseLine(), c.CommandPath())}
}

// didYouMean names the commands of c closest to name ("recal":
// recall), or "" when none is close: cobra suggests them itself only for
// a command that takes no arguments of its own, which markUsageErrors
// replaces with its own check.
func didYouMean(c *cobra.Command, name string) string {
	if c.SuggestionsMinimumDistance <= 0 {
		c.SuggestionsMinimumDistance = 2
	}
	near := c.SuggestionsFor(name)
	if len(near) == 0 {
		return ""
	}
	for i, n := range near {
		near[i] = "'" + c.CommandPath() + " " + n + "'"
	}
	return "\ndid you mean " + strings.Join(near, " or ") + "?"
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
