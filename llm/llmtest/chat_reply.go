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
	Provider          string            `json:"provider,omitempty"`
	Choices           []chatChunkChoice `json:"choices"`
	// Usage is null in every chunk but the last when usage was asked for,
	// and absent otherwise.
	Usage any `json:"usage,omitempty"`
}

type chatChunkChoice struct {
	Index              int            `json:"index"`
	Delta              map[string]any `json:"delta"`
	Logprobs           any            `json:"logprobs"`
	FinishReason       *string        `json:"finish_reason"`
	NativeFinishReason any            `json:"native_finish_reason,omitempty"`
}

type chatUsage struct {
	PromptTokens      int64          `json:"prompt_tokens"`
	CompletionTokens  int64          `json:"completion_tokens"`
	TotalTokens       int64          `json:"total_tokens"`
	PromptDetails     map[string]any `json:"prompt_tokens_details"`
	CompletionDetails map[string]any `json:"completion_tokens_details"`
	Cost              float64        `json:"cost,omitempty"`
	IsBYOK            *bool          `json:"is_byok,omitempty"`
	CostDetails       map[string]any `json:"cost_details,omitempty"`
}

func newChatUsage(t *turn) *chatUsage {
	u := t.usage
	prompt := map[string]any{"cached_tokens": u.CacheReadTokens, "audio_tokens": 0}
	if u.CacheWriteTokens > 0 || t.dialect == DialectOpenRouter {
		prompt["cache_write_tokens"] = u.CacheWriteTokens
	}
	cu := &chatUsage{
		PromptTokens:     u.InputTokens,
		CompletionTokens: u.OutputTokens,
		TotalTokens:      u.TotalTokens,
		PromptDetails:    prompt,
		CompletionDetails: map[string]any{
			"reasoning_tokens": u.ReasoningTokens, "audio_tokens": 0,
			"accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0,
		},
	}
	if t.dialect == DialectOpenRouter {
		// A made-up price, so code that sums costs sees numbers.
		in, out := float64(u.InputTokens)/1e6, float64(4*u.OutputTokens)/1e6
		cu.Cost, cu.IsBYOK = in+out, new(bool)
		cu.CostDetails = map[string]any{
			"upstream_inference_cost": in + out, "upstream_inference_prompt_cost": in, "upstream_inference_completions_cost": out,
		}
		prompt["video_tokens"] = 0
		cu.CompletionDetails["image_tokens"] = 0
	}
	return cu
}

func chatFinish(t *turn) string {
	switch {
	case t.refusalDefault:
		return "stop" // OpenAI reports a refusal in message.refusal with a normal stop
	case t.legacyCall() && t.finish == llm.FinishToolCalls:
		return "function_call"
	}
	return string(t.finish)
}

// legacyCall reports whether the turn's first call goes out as the
// deprecated function_call, in place of tool_calls.
func (t *turn) legacyCall() bool { return t.reply.LegacyFunctionCall && len(t.calls) > 0 }

func chatEvents(t *turn) []event {
	r := t.reply
	openRouter := t.dialect == DialectOpenRouter
	base := chatChunk{
		ID: "chatcmpl-" + t.id, Object: "chat.completion.chunk", Created: t.created, Model: t.model,
		ServiceTier: "default", SystemFingerprint: "fp_llmtest",
	}
	if openRouter {
		base.ID, base.Provider = "gen-"+t.id, openRouterProvider
	}
	withUsage := includeUsage(t.req) || openRouter
	if withUsage && !openRouter {
		base.Usage = json.RawMessage("null")
	}
	var out []event
	add := func(c chatChunk) {
		b, _ := json.Marshal(c)
		out = append(out, event{data: b})
	}
	delta := func(d map[string]any) {
		c := base
		ch := chatChunkChoice{Delta: d}
		if openRouter {
			// OpenRouter repeats the role in every delta, with empty content.
			d["role"] = "assistant"
			if _, ok := d["content"]; !ok {
				d["content"] = ""
				if d["tool_calls"] != nil {
					d["content"] = nil
				}
			}
			ch.NativeFinishReason = json.RawMessage("null")
		}
		c.Choices = []chatChunkChoice{ch}
		add(c)
	}
	finish := chatFinish(t)
	finished := func() []chatChunkChoice {
		ch := chatChunkChoice{Delta: map[string]any{}, FinishReason: &finish}
		if openRouter {
			ch.Delta = map[string]any{"content": "", "role": "assistant", "reasoning": nil}
			ch.NativeFinishReason = nativeFinish(t)
		}
		return []chatChunkChoice{ch}
	}

	if !r.Empty {
		role := map[string]any{"role": "assistant", "content": "", "refusal": nil}
		if r.Text == "" && r.Reasoning == "" {
			role["content"] = nil
		}
		delta(role)
		for _, w := range words(r.Reasoning) {
			if openRouter {
				delta(map[string]any{"reasoning": w, "reasoning_details": reasoningDetail("text", w)})
			} else {
				delta(map[string]any{"reasoning_content": w})
			}
		}
		if openRouter && r.Reasoning != "" {
			delta(map[string]any{"reasoning_details": reasoningDetail("signature", t.signature)})
		}
		for _, w := range words(r.Text) {
			delta(map[string]any{"content": w})
		}
		for _, w := range words(r.Refusal) {
			delta(map[string]any{"refusal": w})
		}
		if t.legacyCall() {
			c := t.calls[0]
			delta(map[string]any{"function_call": map[string]any{"name": c.Name, "arguments": ""}})
			for _, f := range fragments(c.Arguments, argFragment) {
				delta(map[string]any{"function_call": map[string]any{"arguments": f}})
			}
		} else {
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
		}
		c := base
		c.Choices = finished()
		add(c)
	}
	if withUsage {
		c := base
		c.Choices = []chatChunkChoice{}
		if openRouter && !r.Empty {
			c.Choices = finished() // OpenRouter repeats the finish with the usage
		}
		c.Usage = newChatUsage(t)
		add(c)
	}
	if openRouter && len(out) > 0 {
		out[0].comment = openRouterComment
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
		if r.Reasoning != "" && t.dialect == DialectOpenRouter {
			detail := reasoningDetail("text", r.Reasoning)
			detail[0].(map[string]any)["signature"] = t.signature
			msg["reasoning"], msg["reasoning_details"] = r.Reasoning, detail
		} else if r.Reasoning != "" {
			msg["reasoning_content"] = r.Reasoning
		}
		if t.legacyCall() {
			msg["function_call"] = map[string]any{"name": t.calls[0].Name, "arguments": t.calls[0].Arguments}
		} else if len(t.calls) > 0 {
			calls := make([]any, len(t.calls))
			for i, c := range t.calls {
				call := map[string]any{
					"id": t.callID(i, "call_", 24), "type": "function",
					"function": map[string]any{"name": c.Name, "arguments": c.Arguments},
				}
				if t.dialect == DialectOpenRouter {
					call["index"] = i
				}
				calls[i] = call
			}
			msg["tool_calls"] = calls
		}
		choice := map[string]any{"index": 0, "message": msg, "logprobs": nil, "finish_reason": chatFinish(t)}
		if t.dialect == DialectOpenRouter {
			choice["native_finish_reason"] = nativeFinish(t)
		}
		choices = append(choices, choice)
	}
	body := map[string]any{
		"id": "chatcmpl-" + t.id, "object": "chat.completion", "created": t.created, "model": t.model,
		"choices": choices, "usage": newChatUsage(t),
		"service_tier": "default", "system_fingerprint": "fp_llmtest",
	}
	if t.dialect != DialectOpenRouter {
		b, _ := json.MarshalIndent(body, "", "  ")
		return b
	}
	body["id"], body["provider"] = "gen-"+t.id, openRouterProvider
	b, _ := json.Marshal(body)
	return append([]byte(openRouterBlankBody), b...)
}
