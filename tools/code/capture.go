package code

import (
	"fmt"
	"os"
)

// capture keeps what a script printed on one stream within a bound: all
// of it up to limit bytes; past that its head and tail, and, when spill
// is set, the whole of it (up to spillCap bytes) in a file the model can
// read. Memory never grows past about limit bytes however much is
// printed.
type capture struct {
	limit    int
	spill    func() (*os.File, error) // nil: nothing is saved
	spillCap int64

	buf   []byte // everything, while total <= limit; then the head
	tail  []byte // ring of the last bytes once over the limit
	pos   int    // next write position in tail
	full  bool   // tail has wrapped
	total int64

	file     *os.File
	saved    int64
	spillErr error
}

func newCapture(limit int, spill func() (*os.File, error), spillCap int64) *capture {
	return &capture{limit: limit, spill: spill, spillCap: spillCap}
}

// headSize is how much of the head is kept once the output is over the
// limit; the rest of the limit goes to the tail, where a traceback is.
func (c *capture) headSize() int { return c.limit * 2 / 5 }

func (c *capture) Write(p []byte) (int, error) {
	n := len(p)
	c.total += int64(n)
	if c.tail == nil && len(c.buf)+len(p) <= c.limit {
		c.buf = append(c.buf, p...)
		return n, nil
	}
	if c.tail == nil {
		// Crossing the limit: what was kept starts the file and the head.
		c.save(c.buf)
		all := append(c.buf, p...)
		c.buf = append([]byte(nil), all[:min(c.headSize(), len(all))]...)
		c.tail = make([]byte, c.limit-c.headSize())
		c.ring(all[len(c.buf):])
		c.save(p)
		return n, nil
	}
	c.save(p)
	c.ring(p)
	return n, nil
}

func (c *capture) ring(p []byte) {
	if len(p) >= len(c.tail) {
		copy(c.tail, p[len(p)-len(c.tail):])
		c.pos, c.full = 0, true
		return
	}
	k := copy(c.tail[c.pos:], p)
	if k < len(p) {
		copy(c.tail, p[k:])
		c.full = true
	}
	c.pos = (c.pos + len(p)) % len(c.tail)
	if c.pos == 0 && len(p) > 0 {
		c.full = true
	}
}

func (c *capture) save(p []byte) {
	if c.spill == nil || c.spillErr != nil || c.saved >= c.spillCap {
		return
	}
	if c.file == nil {
		if c.file, c.spillErr = c.spill(); c.spillErr != nil {
			return
		}
	}
	p = p[:min(int64(len(p)), c.spillCap-c.saved)]
	k, err := c.file.Write(p)
	c.saved += int64(k)
	if err != nil {
		c.spillErr = err
	}
}

// close ends the spill file; it returns its path, "" when nothing was
// saved.
func (c *capture) close() string {
	if c.file == nil {
		return ""
	}
	c.file.Close()
	return c.file.Name()
}

// String is the stream as the model reads it: whole, or head, a note of
// what was left out and where it is, and tail.
func (c *capture) String() string {
	if c.tail == nil {
		return string(c.buf)
	}
	var tail []byte
	if c.full {
		tail = append(append(tail, c.tail[c.pos:]...), c.tail[:c.pos]...)
	} else {
		tail = c.tail[:c.pos]
	}
	omitted := c.total - int64(len(c.buf)) - int64(len(tail))
	note := fmt.Sprintf("\n[... %d bytes left out of %d ...]\n", omitted, c.total)
	switch {
	case c.file != nil && c.spillErr == nil && c.saved == c.total:
		note = fmt.Sprintf("\n[... %d bytes left out of %d; the whole output is in %s: read it with read_file using offset and limit ...]\n", omitted, c.total, c.file.Name())
	case c.file != nil && c.spillErr == nil:
		note = fmt.Sprintf("\n[... %d bytes left out of %d; the first %d bytes are in %s: read it with read_file using offset and limit ...]\n", omitted, c.total, c.saved, c.file.Name())
	case c.spillErr != nil:
		note = fmt.Sprintf("\n[... %d bytes left out of %d; saving the output failed: %v ...]\n", omitted, c.total, c.spillErr)
	}
	return string(c.buf) + note + string(tail)
}
