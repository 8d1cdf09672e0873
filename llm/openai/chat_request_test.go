package openai

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/llm"
)

const doneChunk = `{"choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}`

// sentChat runs one streamed call against a fake provider and returns the
// request body it received, decoded.
func sentChat(t *testing.T, o llm.Options, req *llm.Request) (map[string]any, *fakeProvider) {
	t.Helper()
	f := newFakeProvider(t, serveSSE(sse(doneChunk)))
	if o.NoStream {
		f = newFakeProvider(t, serveJSON(`{"id":"x","model":"m","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"ok"}}]}`))
	}
	if _, _, err := complete(t, chatClient(f, o), req); err != nil {
		t.Fatal(err)
	}
	var body map[string]any
	if err := json.Unmarshal([]byte(f.lastBody()), &body); err != nil {
		t.Fatal(err)
	}
	return body, f
}

func TestChatTokenCapFieldFollowsModel(t *testing.T) {
	tests := []struct {
		model, field string
	}{
		{"gpt-5", "max_completion_tokens"},
		{"gpt-5-mini", "max_completion_tokens"},
		{"o4-mini", "max_completion_tokens"},
		{"o3", "max_completion_tokens"},
		{"openai/gpt-5.4-nano", "max_completion_tokens"},
		{"gpt-4o", "max_tokens"},
		{"moonshotai/kimi-k2.5", "max_tokens"},
		{"omni-moderation", "max_tokens"},
	}
	for _, tt := range tests {
		t.Run(tt.model, func(t *testing.T) {
			req := simpleRequest()
			req.Model, req.MaxTokens = tt.model, 4000
			body, _ := sentChat(t, llm.Options{}, req)
			if body[tt.field] != float64(4000) {
				t.Errorf("body %v lacks %s=4000", body, tt.field)
			}
			other := map[string]string{"max_tokens": "max_completion_tokens", "max_completion_tokens": "max_tokens"}[tt.field]
			if _, ok := body[other]; ok {
				t.Errorf("both token fields sent: %v", body)
			}
		})
	}
}

func TestChatReasoningEffortByProvider(t *testing.T) {
	tests := []struct {
		name   string
		opts   llm.Options
		effort string
		want   map[string]any
	}{
		{"openai uses reasoning_effort", llm.Options{Provider: "openai"}, "high",
			map[string]any{"reasoning_effort": "high"}},
		{"openrouter uses the reasoning object", llm.Options{Provider: "openrouter"}, "medium",
			map[string]any{"reasoning": map[string]any{"effort": "medium"}}},
		{"openrouter none turns reasoning off", llm.Options{Provider: "openrouter"}, "none",
			map[string]any{"reasoning": map[string]any{"effort": "none"}}},
		{"compatible server uses reasoning_effort", llm.Options{Provider: "zai"}, "low",
			map[string]any{"reasoning_effort": "low"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := simpleRequest()
			req.ReasoningEffort = tt.effort
			body, _ := sentChat(t, tt.opts, req)
			for k, v := range tt.want {
				if !jsonEqual(string(mustJSON(body[k])), string(mustJSON(v))) {
					t.Errorf("%s = %v, want %v", k, body[k], v)
				}
			}
			if _, ok := body["reasoning"]; ok && tt.want["reasoning"] == nil {
				t.Errorf("unexpected reasoning object: %v", body)
			}
			if _, ok := body["reasoning_effort"]; ok && tt.want["reasoning_effort"] == nil {
				t.Errorf("unexpected reasoning_effort: %v", body)
			}
		})
	}
}

func TestChatHeaders(t *testing.T) {
	t.Run("openrouter attribution", func(t *testing.T) {
		_, f := sentChat(t, llm.Options{Provider: "openrouter", APIKey: "sk-or", Headers: map[string]string{"X-Extra": "1"}}, simpleRequest())
		h := f.lastHeader()
		if h.Get("HTTP-Referer") != "https://hermes-agent.nousresearch.com" || h.Get("X-Title") != "Hermes Agent" {
			t.Errorf("attribution headers missing: %v", h)
		}
		if h.Get("Authorization") != "Bearer sk-or" || h.Get("X-Extra") != "1" {
			t.Errorf("auth or custom header missing: %v", h)
		}
	})
	t.Run("others get no attribution", func(t *testing.T) {
		_, f := sentChat(t, llm.Options{Provider: "openai"}, simpleRequest())
		if f.lastHeader().Get("X-Title") != "" {
			t.Error("X-Title sent to a provider other than OpenRouter")
		}
	})
}

func TestChatStreamingRequestAsksForUsage(t *testing.T) {
	body, _ := sentChat(t, llm.Options{}, simpleRequest())
	if body["stream"] != true || !jsonEqual(string(mustJSON(body["stream_options"])), `{"include_usage":true}`) {
		t.Errorf("stream %v stream_options %v", body["stream"], body["stream_options"])
	}
	body, _ = sentChat(t, llm.Options{NoStream: true}, simpleRequest())
	if _, ok := body["stream"]; ok {
		t.Errorf("non-streamed call sent stream: %v", body)
	}
}

// history is a conversation with a reasoning assistant turn that called a
// tool, as the loop would replay it.
func history(model string) *llm.Request {
	return &llm.Request{
		Model: model,
		Messages: []llm.Message{
			llm.System("  You are Hermes.  "),
			llm.User("weather?\n"),
			{
				Role: llm.RoleAssistant, Content: " Checking. ",
				Reasoning:        "User wants weather.",
				ReasoningDetails: []json.RawMessage{json.RawMessage(`{"type":"reasoning.text","text":"User wants weather.","signature":"s1"}`)},
				ToolCalls: []llm.ToolCall{
					{ID: "call_1", Name: "weather", Arguments: `{ "units": "C", "city": "Florence", "n": 12345678901234567890 }`},
					{ID: "call_2", Name: "broken", Arguments: `{"city": "Flo`},
					{ID: "call_3", Name: "now", Arguments: ``},
				},
			},
			llm.ToolResult("call_1", "weather", " 40 C \n"),
			llm.ToolResult("call_2", "broken", "error: bad json"),
			llm.ToolResult("call_3", "now", "noon"),
		},
		Tools: []llm.ToolDef{{Name: "weather", Description: "Get weather", Parameters: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`)}},
	}
}

type sentMessage struct {
	Role             string            `json:"role"`
	Content          *string           `json:"content"`
	ToolCallID       string            `json:"tool_call_id"`
	ReasoningContent *string           `json:"reasoning_content"`
	ReasoningDetails []json.RawMessage `json:"reasoning_details"`
	ToolCalls        []struct {
		ID       string `json:"id"`
		Type     string `json:"type"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
}

func sentMessages(t *testing.T, body map[string]any) []sentMessage {
	t.Helper()
	var ms []sentMessage
	if err := json.Unmarshal(mustJSON(body["messages"]), &ms); err != nil {
		t.Fatal(err)
	}
	return ms
}

func TestChatReplaysHistory(t *testing.T) {
	body, _ := sentChat(t, llm.Options{Provider: "openai"}, history("gpt-5"))
	ms := sentMessages(t, body)
	roles := []string{}
	for _, m := range ms {
		roles = append(roles, m.Role)
	}
	if strings.Join(roles, ",") != "system,user,assistant,tool,tool,tool" {
		t.Fatalf("roles %v", roles)
	}
	if *ms[0].Content != "You are Hermes." || *ms[1].Content != "weather?" || *ms[3].Content != "40 C" {
		t.Errorf("content not trimmed: %q %q %q", *ms[0].Content, *ms[1].Content, *ms[3].Content)
	}
	a := ms[2]
	if a.Content == nil || *a.Content != "Checking." {
		t.Errorf("assistant content %v", a.Content)
	}
	if strings.Contains(f2s(a.Content), "User wants weather") {
		t.Error("reasoning sent as content")
	}
	wantArgs := []string{
		`{"city":"Florence","n":12345678901234567890,"units":"C"}`, // canonical: sorted, compact, exact number
		`{"city": "Flo`, // not JSON: sent as the model wrote it
		`{}`,            // empty: an empty object
	}
	for i, c := range a.ToolCalls {
		if c.Type != "function" || c.Function.Arguments != wantArgs[i] {
			t.Errorf("call %d = %+v, want arguments %s", i, c, wantArgs[i])
		}
	}
	if ms[3].ToolCallID != "call_1" || ms[4].ToolCallID != "call_2" || ms[5].ToolCallID != "call_3" {
		t.Errorf("tool results not joined by call id: %+v", ms[3:])
	}
	tools := mustJSON(body["tools"])
	if !jsonEqual(string(tools), `[{"type":"function","function":{"name":"weather","description":"Get weather","parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}}]`) {
		t.Errorf("tools %s", tools)
	}
}

func f2s(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func TestChatEchoesReasoningTheWayEachProviderTakesIt(t *testing.T) {
	tests := []struct {
		name        string
		opts        llm.Options
		model       string
		wantContent *string // reasoning_content on the assistant turn
		wantDetails bool
	}{
		{"openai gets nothing", llm.Options{Provider: "openai"}, "gpt-5", nil, false},
		{"azure gets nothing", llm.Options{Provider: "azure"}, "gpt-5-mini", nil, false},
		{"deepseek gets reasoning_content", llm.Options{Provider: "deepseek"}, "deepseek-reasoner", strp("User wants weather."), false},
		{"a custom base URL gets reasoning_content", llm.Options{}, "glm-4.7", strp("User wants weather."), false},
		{"openrouter gets reasoning_details", llm.Options{Provider: "openrouter"}, "anthropic/claude-haiku-4.5", nil, true},
		{"groq gets nothing", llm.Options{Provider: "groq"}, "moonshotai/kimi-k2-instruct", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body, _ := sentChat(t, tt.opts, history(tt.model))
			a := sentMessages(t, body)[2]
			if (a.ReasoningContent == nil) != (tt.wantContent == nil) ||
				(a.ReasoningContent != nil && *a.ReasoningContent != *tt.wantContent) {
				t.Errorf("reasoning_content %v, want %v", a.ReasoningContent, tt.wantContent)
			}
			if tt.wantDetails != (len(a.ReasoningDetails) == 1) {
				t.Errorf("reasoning_details %s", a.ReasoningDetails)
			}
			if tt.wantDetails && !jsonEqual(string(a.ReasoningDetails[0]), `{"type":"reasoning.text","text":"User wants weather.","signature":"s1"}`) {
				t.Errorf("reasoning_details not verbatim: %s", a.ReasoningDetails[0])
			}
		})
	}
	t.Run("kimi tool turn without reasoning gets an empty reasoning_content", func(t *testing.T) {
		req := history("kimi-k2.5")
		req.Messages[2].Reasoning = ""
		body, _ := sentChat(t, llm.Options{Provider: "kimi"}, req)
		a := sentMessages(t, body)[2]
		if a.ReasoningContent == nil || *a.ReasoningContent != "" {
			t.Errorf("reasoning_content %v, want empty string", a.ReasoningContent)
		}
	})
}

func TestChatRequestDoesNotModifyTheCallersMessages(t *testing.T) {
	req := history("gpt-5")
	before := string(mustJSON(req))
	sentChat(t, llm.Options{}, req)
	if string(mustJSON(req)) != before {
		t.Error("Complete modified the request")
	}
}

func TestChatInvalidToolSchemaIsAnError(t *testing.T) {
	req := simpleRequest()
	req.Tools = []llm.ToolDef{{Name: "bad", Parameters: json.RawMessage(`{"type":`)}}
	f := newFakeProvider(t, serveSSE(sse(doneChunk)))
	_, _, err := complete(t, chatClient(f, llm.Options{}), req)
	if err == nil || !strings.Contains(err.Error(), `tool "bad"`) {
		t.Fatalf("err %v, want one naming the tool", err)
	}
	if len(f.bodies) != 0 {
		t.Error("a request was sent with a broken schema")
	}
}

func strp(s string) *string { return &s }

func TestChatGatewayReplaysOnlyUnifiedReasoningDetails(t *testing.T) {
	req := history("anthropic/claude-sonnet-4")
	req.Messages[2].ReasoningDetails = []json.RawMessage{
		json.RawMessage(`{"type":"thinking","thinking":"native block","signature":"anthropic-sig"}`),
		json.RawMessage(`{"type":"reasoning.text","text":"unified","signature":"s2"}`),
	}
	body, _ := sentChat(t, llm.Options{Provider: "openrouter"}, req)
	a := sentMessages(t, body)[2]
	if len(a.ReasoningDetails) != 1 || !strings.Contains(string(a.ReasoningDetails[0]), `"unified"`) {
		t.Errorf("reasoning_details %s, want only the unified entry", a.ReasoningDetails)
	}

	req.Messages[2].ReasoningDetails = req.Messages[2].ReasoningDetails[:1]
	body, _ = sentChat(t, llm.Options{Provider: "openrouter"}, req)
	if a := sentMessages(t, body)[2]; a.ReasoningDetails != nil {
		t.Errorf("native thinking blocks sent to a gateway: %s", a.ReasoningDetails)
	}
}

func TestTemperatureIsNotSentToOpenAIReasoningModels(t *testing.T) {
	temp := 0.2
	tests := []struct {
		opts  llm.Options
		model string
		sent  bool
	}{
		{llm.Options{Provider: "openai"}, "gpt-4o", true},
		{llm.Options{Provider: "openai"}, "gpt-5", false},
		{llm.Options{Provider: "azure"}, "o4-mini", false},
		{llm.Options{Provider: "openrouter"}, "openai/gpt-5", true},
		{llm.Options{Provider: "custom"}, "glm-4.7", true},
	}
	for _, tt := range tests {
		req := simpleRequest()
		req.Model, req.Temperature = tt.model, &temp
		body, _ := sentChat(t, tt.opts, req)
		if _, ok := body["temperature"]; ok != tt.sent {
			t.Errorf("%s %s: temperature sent=%v, want %v", tt.opts.Provider, tt.model, ok, tt.sent)
		}
	}
}

func TestRequestsGoToTheEndpointUnderTheBaseURL(t *testing.T) {
	_, f := sentChat(t, llm.Options{}, simpleRequest())
	if f.paths[0] != "POST /v1/chat/completions" {
		t.Errorf("chat went to %q", f.paths[0])
	}
	g := newFakeProvider(t, serveSSE(rsse(completedText)))
	if _, _, err := complete(t, NewResponses(llm.Options{BaseURL: g.URL + "/api/v1/"}), simpleRequest()); err != nil {
		t.Fatal(err)
	}
	if g.paths[0] != "POST /api/v1/responses" {
		t.Errorf("responses went to %q", g.paths[0])
	}
}
