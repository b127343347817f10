package opencode

import (
	"testing"
	"time"
)

// reportCPURate adds the benchmark's megabytes per CPU-second, measured
// from the CPU time spent since start.
func reportCPURate(b *testing.B, start time.Duration, bytesPerOp int64) {
	b.StopTimer()
	if used := cpuTime() - start; used > 0 && start > 0 {
		b.ReportMetric(float64(bytesPerOp)*float64(b.N)/used.Seconds()/1e6, "MB/cpu-s")
	}
}
