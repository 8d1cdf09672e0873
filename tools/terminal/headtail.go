package terminal

import (
	"fmt"
	"strings"
)

// headTail keeps the first and last bytes written to it, dropping the
// middle once more than max bytes arrive. Output of a noisy command keeps
// both its start (the command's banner, the first error) and its end (the
// final error, the summary). One goroutine writes at a time.
type headTail struct {
	max   int
	head  []byte
	tail  []byte // ring buffer once full
	pos   int    // next write position in tail when full
	full  bool
	total int64
}

func newHeadTail(max int) *headTail {
	return &headTail{max: max}
}

func (h *headTail) headCap() int { return h.max * 2 / 5 }
func (h *headTail) tailCap() int { return h.max - h.headCap() }

func (h *headTail) Write(p []byte) (int, error) {
	n := len(p)
	h.total += int64(n)
	if room := h.headCap() - len(h.head); room > 0 {
		k := min(room, len(p))
		h.head = append(h.head, p[:k]...)
		p = p[k:]
	}
	tc := h.tailCap()
	for len(p) > 0 {
		if !h.full {
			k := min(tc-len(h.tail), len(p))
			h.tail = append(h.tail, p[:k]...)
			p = p[k:]
			if len(h.tail) == tc {
				h.full = true
				h.pos = 0
			}
			continue
		}
		if len(p) >= tc {
			copy(h.tail, p[len(p)-tc:])
			h.pos = 0
			return n, nil
		}
		k := copy(h.tail[h.pos:], p)
		p = p[k:]
		h.pos = (h.pos + k) % tc
	}
	return n, nil
}

// String returns the kept output, with a marker saying how much of the
// middle was dropped.
func (h *headTail) String() string {
	var tail []byte
	if h.full {
		tail = append(append([]byte{}, h.tail[h.pos:]...), h.tail[:h.pos]...)
	} else {
		tail = h.tail
	}
	kept := int64(len(h.head) + len(tail))
	var b strings.Builder
	b.Write(h.head)
	if dropped := h.total - kept; dropped > 0 {
		fmt.Fprintf(&b, "\n[... %d bytes of output truncated (%d total) ...]\n", dropped, h.total)
	}
	b.Write(tail)
	return strings.ToValidUTF8(b.String(), "\uFFFD")
}
