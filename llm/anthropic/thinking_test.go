package anthropic

import (
	"encoding/json"
	"testing"

	"github.com/hermes-go/hermes/llm"
)

// historyWithThinking is a tool round whose assistant turn carries signed
// thinking, as this transport stores it.
func historyWithThinking() []llm.Message {
	return []llm.Message{
		llm.System("sys"),
		llm.User("weather?"),
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{call("toolu_1", "weather", `{"city":"Rome"}`)},
			Reasoning:        "let me check",
			ReasoningDetails: []json.RawMessage{detail(`{"type":"thinking","thinking":"let me check","signature":"sig"}`)}},
		llm.ToolResult("toolu_1", "weather", "sunny"),
	}
}

func TestThinkingReplayDependsOnTheEndpoint(t *testing.T) {
	tests := []struct {
		name         string
		path         string // appended to the fake server's URL
		provider     string
		wantThinking bool
	}{
		{"provider anthropic is native", "", "anthropic", true},
		{"third-party /anthropic endpoint", "/anthropic", "minimax", false},
		{"custom Anthropic-compatible endpoint", "/api/anthropic/v1", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newFakeServer(t, reply{body: textStream("ok")})
			c := New(llm.Options{BaseURL: srv.URL + tt.path, APIKey: "k", Provider: tt.provider, HTTPClient: srv.Client()})
			if _, err := c.Complete(t.Context(), &llm.Request{Model: "claude-test", Messages: historyWithThinking()}, nil); err != nil {
				t.Fatal(err)
			}
			msgs := srv.body(t, 0)["messages"].([]any)
			blocks := msgs[1].(map[string]any)["content"].([]any)
			first := blocks[0].(map[string]any)
			gotThinking := first["type"] == "thinking"
			if gotThinking != tt.wantThinking {
				t.Fatalf("thinking replayed = %v, want %v (blocks %v)", gotThinking, tt.wantThinking, blocks)
			}
			if gotThinking && first["signature"] != "sig" {
				t.Errorf("signature %v, want sig", first["signature"])
			}
			wantPath := "/v1/messages"
			if tt.path == "/anthropic" {
				wantPath = "/anthropic/v1/messages"
			} else if tt.path != "" {
				wantPath = "/api/anthropic/v1/messages"
			}
			if srv.paths[0] != wantPath {
				t.Errorf("posted to %s, want %s", srv.paths[0], wantPath)
			}
		})
	}
}

func TestAPIKeyGoesInXAPIKeyHeader(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "from-environment")
	t.Setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:1")
	srv := newFakeServer(t, reply{body: textStream("ok")})
	c := New(llm.Options{BaseURL: srv.URL, APIKey: "sk-test", HTTPClient: srv.Client(), Headers: map[string]string{"X-Extra": "1"}})
	if _, err := c.Complete(t.Context(), &llm.Request{Model: "m", Messages: []llm.Message{llm.User("hi")}}, nil); err != nil {
		t.Fatal(err)
	}
	h := srv.headers[0]
	if h.Get("X-Api-Key") != "sk-test" {
		t.Errorf("x-api-key = %q, want sk-test", h.Get("X-Api-Key"))
	}
	if h.Get("Authorization") != "" {
		t.Errorf("Authorization %q sent; Anthropic-compatible endpoints read x-api-key", h.Get("Authorization"))
	}
	if h.Get("Anthropic-Version") == "" {
		t.Error("anthropic-version header missing")
	}
	if h.Get("X-Extra") != "1" {
		t.Error("configured header missing")
	}
}

func TestReasoningEffortSetsThinkingBudget(t *testing.T) {
	temp := 0.3
	tests := []struct {
		effort    string
		maxTokens int
		wantType  string // "" = no thinking field
		budget    float64
		wantMax   float64
	}{
		{"", 0, "", 0, DefaultMaxTokens},
		{"none", 0, "", 0, DefaultMaxTokens},
		{"low", 0, "enabled", 4096, DefaultMaxTokens},
		{"medium", 0, "enabled", 10000, DefaultMaxTokens},
		{"high", 0, "enabled", 32000, DefaultMaxTokens + 32000},
		{"low", 2000, "enabled", 4096, 2000 + 4096},
		{"medium", 50000, "enabled", 10000, 50000},
	}
	c := New(llm.Options{})
	for _, tt := range tests {
		t.Run(tt.effort, func(t *testing.T) {
			body := wire(t, c, &llm.Request{Model: "claude-sonnet-4", Messages: []llm.Message{llm.User("hi")},
				ReasoningEffort: tt.effort, MaxTokens: tt.maxTokens, Temperature: &temp})
			if body["max_tokens"] != tt.wantMax {
				t.Errorf("max_tokens = %v, want %v", body["max_tokens"], tt.wantMax)
			}
			th, ok := body["thinking"].(map[string]any)
			if tt.wantType == "" {
				if ok {
					t.Errorf("thinking sent: %v", th)
				}
				if body["temperature"] != temp {
					t.Errorf("temperature = %v, want %v", body["temperature"], temp)
				}
				return
			}
			if !ok || th["type"] != tt.wantType || th["budget_tokens"] != tt.budget {
				t.Fatalf("thinking = %v, want %s with budget %v", body["thinking"], tt.wantType, tt.budget)
			}
			if body["max_tokens"].(float64) <= tt.budget {
				t.Errorf("max_tokens %v does not exceed the budget %v", body["max_tokens"], tt.budget)
			}
			if _, ok := body["temperature"]; ok {
				t.Error("temperature sent with thinking on (the API rejects it)")
			}
		})
	}
}

func TestAdaptiveModelsGetEffortInsteadOfBudget(t *testing.T) {
	body := wire(t, New(llm.Options{}), &llm.Request{Model: "claude-opus-4-6", Messages: []llm.Message{llm.User("hi")}, ReasoningEffort: "high"})
	assertJSON(t, "thinking", body["thinking"], map[string]any{"type": "adaptive"})
	assertJSON(t, "output_config", body["output_config"], map[string]any{"effort": "high"})
}

func TestUnknownReasoningEffortIsAnError(t *testing.T) {
	_, err := New(llm.Options{}).buildRequest(&llm.Request{Model: "m", Messages: []llm.Message{llm.User("hi")}, ReasoningEffort: "extreme"})
	if err == nil {
		t.Fatal("unknown effort accepted")
	}
}

func TestThinkingPausesForAToolRoundStartedWithoutIt(t *testing.T) {
	unsigned := historyWithThinking()
	unsigned[2].ReasoningDetails = nil // e.g. the round began on another provider
	tests := []struct {
		name    string
		msgs    []llm.Message
		options llm.Options
		want    bool // thinking sent
	}{
		{"signed round keeps thinking", historyWithThinking(), llm.Options{}, true},
		{"unsigned round on Anthropic", unsigned, llm.Options{}, false},
		{"new user turn thinks again", append(llm.CloneMessages(unsigned), llm.Assistant("done"), llm.User("next")), llm.Options{}, true},
		{"third-party endpoint decides for itself", unsigned, llm.Options{BaseURL: "https://api.example.com/anthropic"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := wire(t, New(tt.options), &llm.Request{Model: "claude-sonnet-4", Messages: tt.msgs, ReasoningEffort: "medium"})
			if _, got := body["thinking"]; got != tt.want {
				t.Fatalf("thinking sent = %v, want %v", got, tt.want)
			}
		})
	}
}
