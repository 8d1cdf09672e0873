package code

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// Whatever the sizes of the writes, the capture shows the whole stream
// up to its limit, and past it the stream's exact head and tail.
func TestCaptureKeepsTheExactHeadAndTail(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 200 {
		limit := 10 + rng.IntN(200)
		c := newCapture(limit, nil, 0)
		var all strings.Builder
		for range rng.IntN(40) {
			n := rng.IntN(3 * limit)
			b := make([]byte, n)
			for i := range b {
				b[i] = byte('a' + rng.IntN(26))
			}
			c.Write(b)
			all.Write(b)
		}
		whole, got := all.String(), c.String()
		if len(whole) <= limit {
			if got != whole {
				t.Fatalf("round %d: %q, want %q", round, got, whole)
			}
			continue
		}
		head, tail := whole[:c.headSize()], whole[len(whole)-(limit-c.headSize()):]
		if !strings.HasPrefix(got, head+"\n[...") || !strings.HasSuffix(got, "...]\n"+tail) {
			t.Fatalf("round %d (limit %d, %d bytes): %q\nwant head %q tail %q", round, limit, len(whole), got, head, tail)
		}
	}
}
