package session

import (
	"crypto/rand"
	"encoding/hex"
	"time"
)

// NewID returns a session id of the form YYYYMMDD_HHMMSS_xxxxxx: the
// clock's time (in its own location) and 6 random hex digits. A nil clock
// is time.Now.
func NewID(clock func() time.Time) string {
	if clock == nil {
		clock = time.Now
	}
	var b [3]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	return clock().Format("20060102_150405") + "_" + hex.EncodeToString(b[:])
}
