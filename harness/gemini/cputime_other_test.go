//go:build !unix

package gemini

import "time"

// cpuTime is unknown off Unix; the CPU-second rate is then not reported.
func cpuTime() time.Duration { return 0 }
