//go:build unix

package opencode

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time the process has used, user and system: a
// benchmark's rate per CPU-second holds on a machine busy with other
// work, where its wall-clock MB/s does not.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
