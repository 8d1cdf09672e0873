package llmtest

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/hermes-go/hermes/llm"
)

// The Anthropic rendering follows recorded api.anthropic.com traffic:
// message_start with the input usage, one content block per thinking
// (thinking_delta then signature_delta), text (text_delta) and tool_use
// (input_json_delta fragments, the first one empty), a ping after the
// first block starts, message_delta with stop_reason and the cumulative
// usage, and message_stop.

func anthropicStop(t *turn) string {
	switch t.finish {
	case llm.FinishStop:
		return "end_turn"
	case llm.FinishToolCalls:
		return "tool_use"
	case llm.FinishLength:
		return "max_tokens"
	case llm.FinishContentFilter:
		return "refusal"
	}
	return string(t.finish)
}

// anthropicUsage reports usage the Anthropic way: input_tokens excludes
// the tokens read from or written to the cache.
func (t *turn) anthropicUsage(outputTokens int64, start bool) map[string]any {
	u := t.usage
	input := max(0, u.InputTokens-u.CacheReadTokens-u.CacheWriteTokens)
	m := map[string]any{
		"input_tokens":                input,
		"cache_creation_input_tokens": u.CacheWriteTokens,
		"cache_read_input_tokens":     u.CacheReadTokens,
		"output_tokens":               outputTokens,
	}
	if start {
		m["cache_creation"] = map[string]any{"ephemeral_5m_input_tokens": u.CacheWriteTokens, "ephemeral_1h_input_tokens": 0}
		m["service_tier"] = "standard"
	}
	return m
}

func (t *turn) anthropicMessage(content []any, stop any, usage map[string]any) map[string]any {
	return map[string]any{
		"model": t.model, "id": "msg_01" + t.id[:22], "type": "message", "role": "assistant",
		"content": content, "stop_reason": stop, "stop_sequence": nil, "usage": usage,
	}
}

func (t *turn) anthropicToolID(i int) string { return t.callID(i, "toolu_01", 22) }

func anthropicBody(t *turn) ([]byte, error) {
	r := t.reply
	content := []any{}
	if !r.Empty {
		if r.Reasoning != "" {
			content = append(content, map[string]any{"type": "thinking", "thinking": r.Reasoning, "signature": t.signature})
		}
		if r.Text != "" {
			content = append(content, map[string]any{"type": "text", "text": r.Text})
		}
		if r.Refusal != "" {
			content = append(content, map[string]any{"type": "text", "text": r.Refusal})
		}
		for i, c := range t.calls {
			if !strings.HasPrefix(strings.TrimSpace(c.Arguments), "{") || !json.Valid([]byte(c.Arguments)) {
				return nil, fmt.Errorf("tool call %d (%s): arguments %q are not a JSON object, which a non-streamed Anthropic tool_use cannot carry", i, c.Name, c.Arguments)
			}
			content = append(content, map[string]any{
				"type": "tool_use", "id": t.anthropicToolID(i), "name": c.Name, "input": json.RawMessage(c.Arguments),
			})
		}
	}
	return json.Marshal(t.anthropicMessage(content, anthropicStop(t), t.anthropicUsage(t.usage.OutputTokens, true)))
}

func anthropicEvents(t *turn) []event {
	r := t.reply
	var out []event
	add := func(typ string, fields map[string]any) {
		fields["type"] = typ
		b, _ := json.Marshal(fields)
		out = append(out, event{name: typ, data: b})
	}
	add("message_start", map[string]any{"message": t.anthropicMessage([]any{}, nil, t.anthropicUsage(1, true))})

	idx := 0
	block := func(start map[string]any, deltas []map[string]any) {
		add("content_block_start", map[string]any{"index": idx, "content_block": start})
		if idx == 0 {
			out = append(out, event{name: "ping", data: []byte(`{"type": "ping"}`)})
		}
		for _, d := range deltas {
			add("content_block_delta", map[string]any{"index": idx, "delta": d})
		}
		add("content_block_stop", map[string]any{"index": idx})
		idx++
	}
	textDeltas := func(s string) []map[string]any {
		var ds []map[string]any
		for _, w := range words(s) {
			ds = append(ds, map[string]any{"type": "text_delta", "text": w})
		}
		return ds
	}
	if !r.Empty {
		if r.Reasoning != "" {
			var ds []map[string]any
			for _, w := range words(r.Reasoning) {
				ds = append(ds, map[string]any{"type": "thinking_delta", "thinking": w})
			}
			ds = append(ds, map[string]any{"type": "signature_delta", "signature": t.signature})
			block(map[string]any{"type": "thinking", "thinking": "", "signature": ""}, ds)
		}
		if r.Text != "" {
			block(map[string]any{"type": "text", "text": ""}, textDeltas(r.Text))
		}
		if r.Refusal != "" {
			block(map[string]any{"type": "text", "text": ""}, textDeltas(r.Refusal))
		}
		for i, c := range t.calls {
			ds := []map[string]any{{"type": "input_json_delta", "partial_json": ""}}
			for _, f := range fragments(c.Arguments, argFragment) {
				ds = append(ds, map[string]any{"type": "input_json_delta", "partial_json": f})
			}
			block(map[string]any{"type": "tool_use", "id": t.anthropicToolID(i), "name": c.Name, "input": map[string]any{}}, ds)
		}
	}
	add("message_delta", map[string]any{
		"delta": map[string]any{"stop_reason": anthropicStop(t), "stop_sequence": nil},
		"usage": t.anthropicUsage(t.usage.OutputTokens, false),
	})
	add("message_stop", map[string]any{})
	return out
}
