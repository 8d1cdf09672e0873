package llmtest

import (
	"encoding/json"

	"github.com/hermes-go/hermes/llm"
)

// The Chat Completions rendering follows recorded api.openai.com traffic:
// a role chunk, reasoning_content deltas (DeepSeek/xAI style), content
// deltas one word each, each tool call opened with index, id, type and
// name and then fed argument fragments, a finish chunk with an empty
// delta, a usage chunk with no choices when stream_options.include_usage
// is set, then [DONE].

type chatChunk struct {
	ID                string            `json:"id"`
	Object            string            `json:"object"`
	Created           int64             `json:"created"`
	Model             string            `json:"model"`
	ServiceTier       string            `json:"service_tier"`
	SystemFingerprint string            `json:"system_fingerprint"`
	Choices           []chatChunkChoice `json:"choices"`
	// Usage is null in every chunk but the last when usage was asked for,
	// and absent otherwise.
	Usage any `json:"usage,omitempty"`
}

type chatChunkChoice struct {
	Index        int            `json:"index"`
	Delta        map[string]any `json:"delta"`
	Logprobs     any            `json:"logprobs"`
	FinishReason *string        `json:"finish_reason"`
}

type chatUsage struct {
	PromptTokens      int64          `json:"prompt_tokens"`
	CompletionTokens  int64          `json:"completion_tokens"`
	TotalTokens       int64          `json:"total_tokens"`
	PromptDetails     map[string]any `json:"prompt_tokens_details"`
	CompletionDetails map[string]any `json:"completion_tokens_details"`
}

func newChatUsage(u llm.Usage) *chatUsage {
	prompt := map[string]any{"cached_tokens": u.CacheReadTokens, "audio_tokens": 0}
	if u.CacheWriteTokens > 0 {
		prompt["cache_write_tokens"] = u.CacheWriteTokens
	}
	return &chatUsage{
		PromptTokens:     u.InputTokens,
		CompletionTokens: u.OutputTokens,
		TotalTokens:      u.TotalTokens,
		PromptDetails:    prompt,
		CompletionDetails: map[string]any{
			"reasoning_tokens": u.ReasoningTokens, "audio_tokens": 0,
			"accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0,
		},
	}
}

func chatFinish(t *turn) string {
	if t.refusalDefault {
		return "stop" // OpenAI reports a refusal in message.refusal with a normal stop
	}
	return string(t.finish)
}

func chatEvents(t *turn) []event {
	r := t.reply
	base := chatChunk{
		ID: "chatcmpl-" + t.id, Object: "chat.completion.chunk", Created: t.created, Model: t.model,
		ServiceTier: "default", SystemFingerprint: "fp_llmtest",
	}
	var out []event
	add := func(c chatChunk) {
		b, _ := json.Marshal(c)
		out = append(out, event{data: b})
	}
	delta := func(d map[string]any) {
		c := base
		c.Choices = []chatChunkChoice{{Delta: d}}
		add(c)
	}

	if includeUsage(t.req) {
		base.Usage = json.RawMessage("null")
	}
	if !r.Empty {
		role := map[string]any{"role": "assistant", "content": "", "refusal": nil}
		if r.Text == "" && r.Reasoning == "" {
			role["content"] = nil
		}
		delta(role)
		for _, w := range words(r.Reasoning) {
			delta(map[string]any{"reasoning_content": w})
		}
		for _, w := range words(r.Text) {
			delta(map[string]any{"content": w})
		}
		for _, w := range words(r.Refusal) {
			delta(map[string]any{"refusal": w})
		}
		for i, c := range t.calls {
			delta(map[string]any{"tool_calls": []any{map[string]any{
				"index": i, "id": t.callID(i, "call_", 24), "type": "function",
				"function": map[string]any{"name": c.Name, "arguments": ""},
			}}})
			for _, f := range fragments(c.Arguments, argFragment) {
				delta(map[string]any{"tool_calls": []any{map[string]any{
					"index": i, "function": map[string]any{"arguments": f},
				}}})
			}
		}
		finish := chatFinish(t)
		c := base
		c.Choices = []chatChunkChoice{{Delta: map[string]any{}, FinishReason: &finish}}
		add(c)
	}
	if includeUsage(t.req) {
		c := base
		c.Choices = []chatChunkChoice{}
		c.Usage = newChatUsage(t.usage)
		add(c)
	}
	return append(out, event{data: []byte("[DONE]")})
}

func includeUsage(req *Request) bool {
	opts, _ := req.JSON["stream_options"].(map[string]any)
	v, _ := opts["include_usage"].(bool)
	return v
}

func chatBody(t *turn) []byte {
	r := t.reply
	choices := []any{}
	if !r.Empty {
		msg := map[string]any{"role": "assistant", "content": nil, "refusal": nil, "annotations": []any{}}
		if r.Text != "" {
			msg["content"] = r.Text
		}
		if r.Refusal != "" {
			msg["refusal"] = r.Refusal
		}
		if r.Reasoning != "" {
			msg["reasoning_content"] = r.Reasoning
		}
		if len(t.calls) > 0 {
			calls := make([]any, len(t.calls))
			for i, c := range t.calls {
				calls[i] = map[string]any{
					"id": t.callID(i, "call_", 24), "type": "function",
					"function": map[string]any{"name": c.Name, "arguments": c.Arguments},
				}
			}
			msg["tool_calls"] = calls
		}
		choices = append(choices, map[string]any{
			"index": 0, "message": msg, "logprobs": nil, "finish_reason": chatFinish(t),
		})
	}
	b, _ := json.MarshalIndent(map[string]any{
		"id": "chatcmpl-" + t.id, "object": "chat.completion", "created": t.created, "model": t.model,
		"choices": choices, "usage": newChatUsage(t.usage),
		"service_tier": "default", "system_fingerprint": "fp_llmtest",
	}, "", "  ")
	return b
}
