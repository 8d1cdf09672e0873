package llmtest_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/respjson"

	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
)

// openRouterReasoning reads OpenRouter's reasoning fields from a message or
// delta: the text, and the signature carried by a reasoning_details entry.
func openRouterReasoning(t *testing.T, extra map[string]respjson.Field) (text, signature string) {
	t.Helper()
	if f, ok := extra["reasoning"]; ok {
		_ = json.Unmarshal([]byte(f.Raw()), &text)
	}
	if f, ok := extra["reasoning_details"]; ok {
		var details []struct {
			Type, Text, Signature string
		}
		if err := json.Unmarshal([]byte(f.Raw()), &details); err != nil {
			t.Fatalf("reasoning_details: %v: %s", err, f.Raw())
		}
		for _, d := range details {
			if d.Type != "reasoning.text" {
				t.Errorf("reasoning_details type %q", d.Type)
			}
			signature += d.Signature
		}
	}
	return text, signature
}

func TestOpenRouterDialectSendsSignedReasoningDetails(t *testing.T) {
	reply := llmtest.Reply{
		Reasoning: "Florence needs the weather tool.",
		Text:      "Checking.",
		ToolCalls: []llm.ToolCall{{Name: "weather", Arguments: `{"location":"Florence"}`}},
	}
	t.Run("not streamed", func(t *testing.T) {
		srv := llmtest.NewServer(t)
		srv.SetDialect(llmtest.DialectOpenRouter)
		srv.Enqueue(reply)
		c := openaiClient(srv)
		resp, err := c.Chat.Completions.New(t.Context(), chatParams())
		if err != nil {
			t.Fatalf("the SDK could not read the body after OpenRouter's keep-alive blank lines: %v", err)
		}
		msg := resp.Choices[0].Message
		text, sig := openRouterReasoning(t, msg.JSON.ExtraFields)
		if text != reply.Reasoning || sig == "" {
			t.Errorf("reasoning %q, signature %q", text, sig)
		}
		if msg.Content != "Checking." || len(msg.ToolCalls) != 1 || resp.Choices[0].FinishReason != "tool_calls" {
			t.Errorf("message %+v, finish %q", msg, resp.Choices[0].FinishReason)
		}
		if f := resp.Choices[0].JSON.ExtraFields["native_finish_reason"]; f.Raw() != `"tool_use"` {
			t.Errorf("native_finish_reason = %s", f.Raw())
		}
	})
	t.Run("streamed", func(t *testing.T) {
		srv := llmtest.NewServer(t)
		srv.SetDialect(llmtest.DialectOpenRouter)
		srv.Enqueue(reply)
		c := openaiClient(srv)
		s := c.Chat.Completions.NewStreaming(t.Context(), chatParams())
		defer s.Close()
		var acc openai.ChatCompletionAccumulator
		var reasoning, signature strings.Builder
		for s.Next() {
			chunk := s.Current()
			acc.AddChunk(chunk)
			if len(chunk.Choices) > 0 {
				text, sig := openRouterReasoning(t, chunk.Choices[0].Delta.JSON.ExtraFields)
				reasoning.WriteString(text)
				signature.WriteString(sig)
			}
		}
		if err := s.Err(); err != nil {
			t.Fatal(err)
		}
		if reasoning.String() != reply.Reasoning || signature.String() == "" {
			t.Errorf("reasoning %q, signature %q", reasoning.String(), signature.String())
		}
		msg := acc.Choices[0].Message
		if msg.Content != "Checking." || len(msg.ToolCalls) != 1 || msg.ToolCalls[0].Function.Arguments != `{"location":"Florence"}` {
			t.Errorf("accumulated %+v", msg)
		}
		// Usage comes without stream_options, as OpenRouter always sends it.
		if acc.Usage.PromptTokens == 0 || acc.Usage.CompletionTokens == 0 {
			t.Errorf("usage %+v", acc.Usage)
		}
	})
	t.Run("keep-alive comment", func(t *testing.T) {
		srv := llmtest.NewServer(t)
		srv.SetDialect(llmtest.DialectOpenRouter)
		srv.Enqueue(reply)
		resp := post(t, srv.URL()+"/chat/completions", `{"model":"m","messages":[{"role":"user","content":"hi"}],"stream":true}`)
		if body := readAll(t, resp); !strings.HasPrefix(body, ": OPENROUTER PROCESSING\n\n") {
			t.Errorf("stream starts %q", body[:min(60, len(body))])
		}
	})
}
