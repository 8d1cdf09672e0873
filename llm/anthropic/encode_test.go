package anthropic

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/packages/param"

	"github.com/hermes-go/hermes/llm"
)

// sdkParams expresses r with the SDK's own param types, whose encoding is
// the reference for ours.
func sdkParams(r *request) anthropic.MessageNewParams {
	p := anthropic.MessageNewParams{Model: r.model, MaxTokens: r.maxTokens, Messages: r.messages, System: r.system}
	for _, t := range r.tools {
		tp := &anthropic.ToolParam{Name: t.name, InputSchema: param.Override[anthropic.ToolInputSchemaParam](t.schema)}
		if t.description != "" {
			tp.Description = param.NewOpt(t.description)
		}
		p.Tools = append(p.Tools, anthropic.ToolUnionParam{OfTool: tp})
	}
	switch {
	case r.adaptive != "":
		p.Thinking.OfAdaptive = &anthropic.ThinkingConfigAdaptiveParam{}
		p.OutputConfig.Effort = anthropic.OutputConfigEffort(r.adaptive)
	case r.budget > 0:
		p.Thinking = anthropic.ThinkingConfigParamOfEnabled(r.budget)
	}
	extra := map[string]any{}
	if r.system == nil && r.systemText != "" {
		extra["system"] = r.systemText
	}
	if r.temperature != nil {
		extra["temperature"] = *r.temperature
	}
	if r.stream {
		extra["stream"] = true
	}
	if len(extra) > 0 {
		p.SetExtraFields(extra)
	}
	return p
}

const awkwardText = "quote \" backslash \\ newline \n tab \t ctrl \x01\x1f html <b>&amp;</b> emoji 🙂 line-sep \u2028\u2029 bad utf8 \xff\xfe end"

func TestEncodingMatchesTheSDK(t *testing.T) {
	temp := 0.7
	history := longHistory(4)
	history = append(history,
		llm.Message{Role: llm.RoleAssistant, Content: awkwardText, ToolCalls: []llm.ToolCall{call("c9", "look", `{"q": "`+strings.ReplaceAll(awkwardText[:20], "\"", "'")+`"}`)},
			ReasoningDetails: []json.RawMessage{
				detail(`{"type":"redacted_thinking","data":"opaque=="}`),
				detail(`{"type":"thinking","thinking":"` + "thinking with \\\"quotes\\\" and \\n" + `","signature":"sig+/="}`),
			}},
		llm.ToolResult("c9", "look", awkwardText),
		llm.User(awkwardText),
	)
	png := llm.Image{MediaType: "image/png", Data: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="}
	withImages := append(append([]llm.Message(nil), history...),
		llm.Assistant("ok"),
		llm.UserWithImages("what is this? "+awkwardText, png, llm.Image{URL: "https://example.com/cat.jpg?a=1&b=<2>"}),
		llm.Assistant("a pixel and a cat"),
		llm.UserWithImages("", png),
	)
	tools := []llm.ToolDef{
		{Name: "look", Description: "Look " + awkwardText, Parameters: []byte(`{"type":"object","properties":{"q":{"type":"string","description":"the \"query\""}},"required":["q"],"$defs":{"x":{}}}`)},
		{Name: "bare"},
	}
	tests := []struct {
		name string
		req  llm.Request
		opts llm.Options
	}{
		{"plain system, tools, temperature", llm.Request{Model: "claude-sonnet-4", Messages: history, Tools: tools, Temperature: &temp}, llm.Options{}},
		{"cache markers with 1h ttl and thinking", llm.Request{Model: "claude-sonnet-4", Messages: history, Tools: tools, ReasoningEffort: "medium", Cache: &llm.CacheOptions{TTL: "1h"}}, llm.Options{}},
		{"adaptive thinking, not streamed", llm.Request{Model: "claude-opus-4-6", Messages: history, ReasoningEffort: "low", MaxTokens: 1000}, llm.Options{NoStream: true}},
		{"third party, no system", llm.Request{Model: "m", Messages: history[1:]}, llm.Options{BaseURL: "https://api.example.com/anthropic"}},
		{"images, cache marker on an image block", llm.Request{Model: "claude-sonnet-4", Messages: withImages, Cache: &llm.CacheOptions{}}, llm.Options{}},
		{"images, streamed", llm.Request{Model: "claude-sonnet-4", Messages: withImages}, llm.Options{}},
		{"images, not streamed", llm.Request{Model: "claude-sonnet-4", Messages: withImages}, llm.Options{NoStream: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := New(tt.opts).buildRequest(&tt.req)
			if err != nil {
				t.Fatal(err)
			}
			ours, err := r.encode()
			if err != nil {
				t.Fatal(err)
			}
			if !json.Valid(ours) {
				t.Fatalf("invalid JSON: %s", ours)
			}
			sdk, err := json.Marshal(sdkParams(r))
			if err != nil {
				t.Fatal(err)
			}
			var a, b any
			_ = json.Unmarshal(ours, &a)
			_ = json.Unmarshal(sdk, &b)
			assertJSON(t, "body", a, b)
			again, _ := r.encode()
			if !bytes.Equal(ours, again) {
				t.Fatal("encoding the same request twice gave different bytes")
			}
		})
	}
}

func TestStringEncodingMatchesEncodingJSON(t *testing.T) {
	for _, s := range []string{"", "plain", awkwardText, "\x00", "\u007f", "é", "\xc3", "a\u2028b", strings.Repeat("x\"", 100)} {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(s); err != nil {
			t.Fatal(err)
		}
		got := appendString(nil, s)
		if string(got) != strings.TrimSuffix(want.String(), "\n") {
			t.Errorf("appendString(%q) = %s, want %s", s, got, want.String())
		}
	}
}

func TestUnknownBlockKindIsAnErrorNotDropped(t *testing.T) {
	r := &request{model: "m", maxTokens: 1, messages: []anthropic.MessageParam{
		anthropic.NewUserMessage(anthropic.NewDocumentBlock(anthropic.PlainTextSourceParam{Data: "AAAA"})),
	}}
	if _, err := r.encode(); err == nil {
		t.Fatal("a document block was encoded without error though the encoder does not write documents")
	}
}
