//go:build windows

package serve

import "syscall"

// canDetach is false: on Windows a recall does not start a service in
// the background (a named pipe's service is started with 'deja serve').
const canDetach = false

func detached() *syscall.SysProcAttr { return nil }
