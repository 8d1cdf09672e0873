package docker

import (
	"bytes"
	"io"
	"sync"
)

// holdBack is how much of the end of stderr is held back until the
// command ends, so that the working-directory marker at its end can be
// taken off before anyone reads it.
const holdBack = 16 << 10

// cwdWriter passes stderr on to w but its last holdBack bytes, which
// Finish searches for the command's marker line (the final working
// directory) and takes off. It keeps the first bytes too, to tell an
// error of the CLI itself (no such container) from the command's.
type cwdWriter struct {
	w      io.Writer
	marker []byte // "\n__HERMES_CWD_<id>="
	hold   int    // how much of the end is held back

	mu    sync.Mutex
	held  []byte
	first []byte
}

func newCwdWriter(w io.Writer, id string) *cwdWriter {
	if w == nil {
		w = io.Discard
	}
	return &cwdWriter{w: w, marker: []byte("\n__HERMES_CWD_" + id + "="), hold: holdBack}
}

// newPassWriter passes stderr on at once (a background command prints no
// marker, and its log is read while it runs), keeping its first bytes.
func newPassWriter(w io.Writer) *cwdWriter {
	if w == nil {
		w = io.Discard
	}
	return &cwdWriter{w: w, marker: []byte{0}}
}

func (c *cwdWriter) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if n := min(len(p), 4096-len(c.first)); n > 0 {
		c.first = append(c.first, p[:n]...)
	}
	c.held = append(c.held, p...)
	if over := len(c.held) - c.hold; over > 0 {
		if _, err := c.w.Write(c.held[:over]); err != nil {
			return 0, err
		}
		c.held = append(c.held[:0], c.held[over:]...)
	}
	return len(p), nil
}

// Finish passes on what was held back, without the marker line, and
// returns the directory it named and whether it was found.
func (c *cwdWriter) Finish() (dir string, found bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	rest := c.held
	if i := bytes.LastIndex(rest, c.marker); i >= 0 {
		after := rest[i+len(c.marker):]
		if j := bytes.IndexByte(after, '\n'); j >= 0 {
			dir, found = string(after[:j]), true
			rest = append(append([]byte{}, rest[:i]...), after[j+1:]...)
		}
	}
	c.held = nil
	if len(rest) > 0 {
		c.w.Write(rest)
	}
	return dir, found
}

// head is the start of stderr, for telling the CLI's own errors.
func (c *cwdWriter) head() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return string(c.first)
}
