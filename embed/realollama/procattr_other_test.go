//go:build !linux

package realollama

import "syscall"

// serverAttr is nil off Linux, which has no parent-death signal.
func serverAttr() *syscall.SysProcAttr { return nil }
