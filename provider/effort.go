package provider

import (
	"fmt"
	"strings"
)

// ParseReasoningEffort checks agent.reasoning_effort (or --reasoning): ""
// (the provider's default), none, low, medium or high. Transports map the
// value onto their wire format from llm.Request.ReasoningEffort.
func ParseReasoningEffort(s string) (string, error) {
	switch v := strings.ToLower(strings.TrimSpace(s)); v {
	case "", "none", "low", "medium", "high":
		return v, nil
	}
	return "", fmt.Errorf("unknown reasoning effort %q (want none, low, medium or high)", s)
}
