package openai

import (
	"encoding/json"
	"testing"

	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
)

// encodingCases are requests covering every field the encoders write.
func encodingCases(t *testing.T) map[string]*llm.Request {
	temp := 0.3
	cases := map[string]*llm.Request{
		"simple":  simpleRequest(),
		"history": history("gpt-5"),
		"kimi history without reasoning": func() *llm.Request {
			r := history("kimi-k2.5")
			r.Messages[2].Reasoning = ""
			return r
		}(),
		"assistant without content or calls": {Model: "gpt-4o", Messages: []llm.Message{llm.User("a"), llm.Assistant(""), llm.User("b")}},
		"knobs": {Model: "gpt-4o", Messages: []llm.Message{llm.User("x")}, MaxTokens: 100, Temperature: &temp,
			ReasoningEffort: "low", SessionID: "sess-1"},
		"reasoning model knobs": {Model: "gpt-5", Messages: []llm.Message{llm.User("x")}, MaxTokens: 100, Temperature: &temp,
			ReasoningEffort: "none", SessionID: "sess-1"},
		"responses items": func() *llm.Request {
			r := history("o4-mini")
			r.Messages[2].ReasoningItems = []json.RawMessage{
				json.RawMessage(`{"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"gAAA"}`),
				json.RawMessage(`{"type":"reasoning","id":"rs_2","summary":[]}`),
			}
			r.Messages[2].ToolCalls[1].ID = "toolu_1"
			r.Messages[4].ToolCallID = "toolu_1"
			return r
		}(),
		"images": {Model: "gpt-4o", Messages: []llm.Message{
			llm.UserWithImages("what is in these?", testImage, llm.Image{URL: "https://example.com/cat.jpg"}),
			llm.Assistant("a square and a cat"),
			llm.UserWithImages("", testImage),
		}},
		"html in content": {Model: "gpt-4o", Messages: []llm.Message{llm.User("if a < b && c > d { <b>x</b> }")}},
	}
	for _, suite := range append(append([]string{}, chatSuites...), responsesSuites...) {
		files, _ := llmtest.CassetteFiles(suite + "/*/*.yaml")
		for _, f := range files {
			c, err := llmtest.LoadCassette(f)
			if err != nil {
				t.Fatal(err)
			}
			var r recReq
			if json.Unmarshal([]byte(c.Interactions[0].Request.Body), &r) == nil && len(r.Messages) > 0 {
				req := recordedChatRequest(t, c.Interactions[0].Request.Body)
				cases[f] = &req
			}
		}
	}
	return cases
}

// testImage is a 1x1 PNG.
var testImage = llm.Image{MediaType: "image/png", Size: 68,
	Data: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="}

var encodingFlavors = []llm.Options{
	{Provider: "openai"}, {Provider: "azure"}, {Provider: "openrouter"}, {Provider: "vercel"},
	{Provider: "deepseek"}, {Provider: "kimi"}, {Provider: "groq"}, {BaseURL: "http://127.0.0.1:8080/v1"},
}

// TestChatEncodingMatchesTheSDK checks that the hand-written body is, value
// for value, what the SDK's own param types would send.
func TestChatEncodingMatchesTheSDK(t *testing.T) {
	for name, req := range encodingCases(t) {
		for _, o := range encodingFlavors {
			for _, stream := range []bool{true, false} {
				c := NewChat(o)
				ours, err := c.encodeChat(req, stream)
				if err != nil {
					t.Fatal(err)
				}
				p, err := c.sdkChatParams(req, stream)
				if err != nil {
					t.Fatal(err)
				}
				sdk, err := p.MarshalJSON()
				if err != nil {
					t.Fatal(err)
				}
				if stream { // NewStreaming adds this field itself
					sdk = setField(t, sdk, "stream", true)
				}
				if !jsonEqual(string(ours), string(sdk)) {
					t.Errorf("%s / %+v / stream=%v:\n ours %s\n  sdk %s", name, o, stream, ours, sdk)
				}
			}
		}
	}
}

func TestResponsesEncodingMatchesTheSDK(t *testing.T) {
	for name, req := range encodingCases(t) {
		for _, stream := range []bool{true, false} {
			r := NewResponses(llm.Options{})
			ours, err := r.encodeResponses(req, stream)
			if err != nil {
				t.Fatal(err)
			}
			p, err := r.sdkResponsesParams(req)
			if err != nil {
				t.Fatal(err)
			}
			sdk, err := p.MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			if stream {
				sdk = setField(t, sdk, "stream", true)
			}
			if !jsonEqual(string(ours), string(sdk)) {
				t.Errorf("%s / stream=%v:\n ours %s\n  sdk %s", name, stream, ours, sdk)
			}
		}
	}
}

func TestEncodingIsDeterministic(t *testing.T) {
	req := history("gpt-5")
	c, r := NewChat(llm.Options{Provider: "deepseek"}), NewResponses(llm.Options{})
	a1, _ := c.encodeChat(req, true)
	b1, _ := r.encodeResponses(req, true)
	for range 5 {
		a2, _ := c.encodeChat(req, true)
		b2, _ := r.encodeResponses(req, true)
		if string(a1) != string(a2) || string(b1) != string(b2) {
			t.Fatal("the same request encoded to different bytes; prompt caches would miss")
		}
	}
}

func setField(t *testing.T, body []byte, key string, v any) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatal(err)
	}
	m[key] = v
	return mustJSON(m)
}
