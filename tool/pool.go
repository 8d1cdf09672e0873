package tool

import (
	"context"
	"sync"
)

// pool bounds how many calls run at once. Its size may change while calls
// run: growing it admits waiters at once, shrinking it lets running calls
// finish and admits no one until the count is under the new size.
type pool struct {
	mu      sync.Mutex
	size    int
	busy    int
	changed chan struct{}
}

func newPool(size int) *pool {
	return &pool{size: max(size, 1), changed: make(chan struct{})}
}

func (p *pool) acquire(ctx context.Context) error {
	for {
		p.mu.Lock()
		if p.busy < p.size {
			p.busy++
			p.mu.Unlock()
			return nil
		}
		ch := p.changed
		p.mu.Unlock()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-ch:
		}
	}
}

func (p *pool) release() {
	p.mu.Lock()
	p.busy--
	p.wake()
	p.mu.Unlock()
}

func (p *pool) resize(n int) {
	p.mu.Lock()
	p.size = max(n, 1)
	p.wake()
	p.mu.Unlock()
}

// wake broadcasts a change to every waiter. Callers hold mu.
func (p *pool) wake() {
	close(p.changed)
	p.changed = make(chan struct{})
}

func (p *pool) stats() (size, busy int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.size, p.busy
}
