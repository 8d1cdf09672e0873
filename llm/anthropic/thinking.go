package anthropic

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	"github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/hermes-go/hermes/llm/modelinfo"
)

// thinkingDetail is the stored form of one Anthropic reasoning block in
// llm.Message.ReasoningDetails: {"type":"thinking","thinking","signature"}
// or {"type":"redacted_thinking","data"}.
type thinkingDetail struct {
	Type      string `json:"type"`
	Thinking  string `json:"thinking,omitempty"`
	Signature string `json:"signature,omitempty"`
	Data      string `json:"data,omitempty"`
}

// thinkingBlocks decodes stored details into blocks the API accepts back:
// signed thinking and redacted thinking. Unsigned thinking, and entries of
// other providers (OpenRouter's reasoning.* details), cannot be verified
// by the API and are left out.
func thinkingBlocks(details []json.RawMessage) []anthropic.ContentBlockParamUnion {
	var out []anthropic.ContentBlockParamUnion
	for _, raw := range details {
		var d thinkingDetail
		if json.Unmarshal(raw, &d) != nil {
			continue
		}
		switch {
		case d.Type == "thinking" && d.Signature != "":
			out = append(out, anthropic.NewThinkingBlock(d.Signature, d.Thinking))
		case d.Type == "redacted_thinking" && d.Data != "":
			out = append(out, anthropic.NewRedactedThinkingBlock(d.Data))
		}
	}
	return out
}

// unsignedToolTurn reports whether msgs ends inside a tool round (tool
// results answering the latest assistant turn) whose assistant turn does
// not start with a thinking block.
func unsignedToolTurn(msgs []anthropic.MessageParam) bool {
	n := len(msgs)
	if n < 2 || msgs[n-1].OfUser == nil || msgs[n-2].OfAssistant == nil {
		return false
	}
	if c := msgs[n-1].OfUser.Content; len(c) == 0 || c[0].OfToolResult == nil {
		return false
	}
	c := msgs[n-2].OfAssistant.Content
	return len(c) > 0 && c[0].OfThinking == nil && c[0].OfRedactedThinking == nil
}

// thinkingBudget is the extended thinking budget for a
// Request.ReasoningEffort.
func thinkingBudget(effort string) (int64, bool) {
	switch effort {
	case "minimal":
		return 1024, true
	case "low":
		return 4096, true
	case "medium":
		return 10000, true
	case "high":
		return 32000, true
	}
	return 0, false
}

// thinkingConfig returns the extended-thinking budget for effort ("" and
// "none" leave thinking off), or, for models that deprecate budgets, the
// effort to send with adaptive thinking.
func thinkingConfig(model, effort string) (budget int64, adaptive string, err error) {
	if effort == "" || effort == "none" {
		return 0, "", nil
	}
	budget, ok := thinkingBudget(effort)
	if !ok {
		return 0, "", fmt.Errorf("anthropic: unknown reasoning effort %q (want none, minimal, low, medium or high)", effort)
	}
	// These models take {"type":"adaptive"} plus an output effort; a
	// budget is deprecated for them.
	if modelinfo.Lookup(model).Has(modelinfo.AdaptiveThinking) {
		if effort == "minimal" {
			effort = "low"
		}
		return 0, effort, nil
	}
	return budget, "", nil
}

// isNative reports whether the options point at Anthropic itself, the
// only endpoint that can verify thinking signatures.
func isNative(provider, baseURL string) bool {
	if provider == "anthropic" || baseURL == "" {
		return true
	}
	u, err := url.Parse(baseURL)
	return err == nil && strings.EqualFold(u.Hostname(), "api.anthropic.com")
}
