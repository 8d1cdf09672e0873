package batch

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// progress reports the run: on a terminal one bar redrawn in place (done,
// failed, rate, ETA); otherwise one plain line per finished prompt.
type progress struct {
	w     io.Writer
	tty   bool
	now   func() time.Time
	start time.Time

	mu                   sync.Mutex
	total, skipped       int
	done, failed, errors int
	drawn                time.Time
}

func newProgress(w io.Writer, tty bool, total, skipped int, now func() time.Time) *progress {
	if w == nil {
		w = io.Discard
	}
	return &progress{w: w, tty: tty, now: now, start: now(), total: total, skipped: skipped}
}

// finished records one prompt. status is "completed", "partial",
// "failed" or "error".
func (p *progress) finished(index int, status, detail string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done++
	switch status {
	case "failed":
		p.failed++
	case "error":
		p.errors++
	}
	if !p.tty {
		fmt.Fprintf(p.w, "[%d/%d] prompt %d: %s%s\n", p.skipped+p.done, p.total, index, status, detail)
		return
	}
	if now := p.now(); now.Sub(p.drawn) >= 100*time.Millisecond || p.skipped+p.done == p.total {
		p.drawn = now
		p.draw()
	}
}

// line prints a message above the bar.
func (p *progress) line(s string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tty {
		fmt.Fprint(p.w, "\r\033[K")
	}
	fmt.Fprintln(p.w, s)
	if p.tty && p.done > 0 {
		p.draw()
	}
}

// end finishes the bar's line.
func (p *progress) end() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tty && p.done > 0 {
		p.draw()
		fmt.Fprintln(p.w)
	}
}

// draw redraws the bar; mu is held.
func (p *progress) draw() {
	const width = 30
	n := p.skipped + p.done
	filled := 0
	if p.total > 0 {
		filled = n * width / p.total
	}
	el := p.now().Sub(p.start).Seconds()
	rate := 0.0
	if el > 0 {
		rate = float64(p.done) / el
	}
	eta := "--"
	if rate > 0 {
		eta = time.Duration(float64(p.total-n) / rate * float64(time.Second)).Round(time.Second).String()
	}
	fmt.Fprintf(p.w, "\r\033[K[%s%s] %d/%d done · %d failed · %d errors · %.1f/s · ETA %s",
		strings.Repeat("█", filled), strings.Repeat("░", width-filled), n, p.total, p.failed, p.errors, rate, eta)
}
