package llm

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestEstimateTokensIsCharsOverFour(t *testing.T) {
	short := []Message{User("hi")}
	long := []Message{User(strings.Repeat("a", 4000))}
	if got := EstimateTokens(long, nil) - EstimateTokens(short, nil); got < 995 || got > 1000 {
		t.Fatalf("4,000 more characters estimated as %d more tokens, want about 1,000", got)
	}
	withCall := []Message{{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "c1", Name: "terminal", Arguments: strings.Repeat("x", 400)}}}}
	if EstimateTokens(withCall, nil) < 100 {
		t.Fatal("tool call arguments not counted")
	}
	tools := []ToolDef{{Name: "read_file", Description: strings.Repeat("d", 400), Parameters: json.RawMessage(`{"type":"object"}`)}}
	if EstimateTokens(short, tools)-EstimateTokens(short, nil) < 100 {
		t.Fatal("tool schemas not counted")
	}
	opaque := []Message{{Role: RoleAssistant, Content: "ok", ReasoningDetails: []json.RawMessage{json.RawMessage(`"` + strings.Repeat("z", 8000) + `"`)}}}
	if EstimateTokens(opaque, nil) > 20 {
		t.Fatal("opaque signed reasoning counted as context")
	}
	if EstimateTokens(nil, nil) != 0 {
		t.Fatal("empty request is not zero")
	}
	if EstimateMessageTokens(long[0]) != EstimateTokens(long, nil) {
		t.Fatal("per-message and whole estimates disagree")
	}
}
