package apiserver

import "time"

// SetApprovalAfter replaces the clock of runs' approval timeouts until
// the returned restore is called.
func SetApprovalAfter(after func(time.Duration) <-chan time.Time) (restore func()) {
	old := approvalAfter
	approvalAfter = after
	return func() { approvalAfter = old }
}
