//go:build !unix

package harnesstest

import "time"

// CPUTime is unknown off Unix; ReportCPURate then reports nothing.
func CPUTime() time.Duration { return 0 }
