//go:build !unix

package session

import "time"

// cpuTime is not measured here; benchmarks then report 0 CPU per op.
func cpuTime() time.Duration { return 0 }
