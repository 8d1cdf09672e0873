package pricing

import (
	"fmt"

	"github.com/hermes-go/hermes/llm"
)

// USD formats a cost: cents for a dollar or more, four decimals below,
// so a cheap run does not show as $0.00.
func USD(v float64) string {
	if v >= 1 {
		return fmt.Sprintf("$%.2f", v)
	}
	return fmt.Sprintf("$%.4f", v)
}

// Describe is one line saying what u cost on model: the total and its
// parts, or that the cost is unknown.
func Describe(model string, u llm.Usage) string {
	c, ok := Estimate(model, u)
	if !ok {
		return fmt.Sprintf("unknown (no price for %q)", model)
	}
	return fmt.Sprintf("%s (input %s, cache read %s, cache write %s, output %s)",
		USD(c.Total()), USD(c.Input), USD(c.CacheRead), USD(c.CacheWrite), USD(c.Output))
}
