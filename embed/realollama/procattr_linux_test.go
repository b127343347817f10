package realollama

import "syscall"

// serverAttr makes 'ollama serve' die with the test process, so a test
// binary killed mid-run leaves no server behind.
func serverAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
}
