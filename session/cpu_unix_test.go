//go:build unix

package session

import (
	"syscall"
	"time"
)

// cpuTime returns the process's CPU time (user+system). Benchmarks report
// CPU per operation beside wall-clock percentiles because the machine they
// run on may be shared: wall time includes waiting for a core.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
