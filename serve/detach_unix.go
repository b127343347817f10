//go:build !windows

package serve

import "syscall"

// canDetach says whether StartBackground can start a service here.
const canDetach = true

// detached starts the service in a session of its own, so the terminal's
// Ctrl-C and hang-up, meant for the recall, do not reach it.
func detached() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }
