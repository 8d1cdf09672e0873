package agent

import (
	"fmt"
	"sync"
)

// IterationBudget counts model calls within one turn. It is safe for
// concurrent use.
type IterationBudget struct {
	mu   sync.Mutex
	max  int
	used int
}

// NewIterationBudget returns a budget of max calls.
func NewIterationBudget(max int) *IterationBudget { return &IterationBudget{max: max} }

// Consume takes one iteration; false when none is left.
func (b *IterationBudget) Consume() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.used >= b.max {
		return false
	}
	b.used++
	return true
}

// Refund gives one iteration back (never below zero used).
func (b *IterationBudget) Refund() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.used > 0 {
		b.used--
	}
}

// Used returns the iterations taken.
func (b *IterationBudget) Used() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used
}

// Max returns the budget's size.
func (b *IterationBudget) Max() int { return b.max }

// Remaining returns the iterations left.
func (b *IterationBudget) Remaining() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return max(0, b.max-b.used)
}

// Pressure returns the warning for the call about to be made (the used-th),
// or "" below 70%. At 90% and over it is the final warning.
func (b *IterationBudget) Pressure() (text string, final bool) {
	b.mu.Lock()
	n, m := b.used, b.max
	b.mu.Unlock()
	if m <= 0 {
		return "", false
	}
	left := max(0, m-n)
	switch {
	case n*10 >= m*9:
		return fmt.Sprintf("[BUDGET WARNING: Iteration %d/%d. Only %d left. Final response NOW.]", n, m, left), true
	case n*10 >= m*7:
		return fmt.Sprintf("[BUDGET: Iteration %d/%d. %d left. Start consolidating your work.]", n, m, left), false
	}
	return "", false
}
