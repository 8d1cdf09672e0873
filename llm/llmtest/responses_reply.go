package llmtest

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"maps"

	"github.com/hermes-go/hermes/llm"
)

// The Responses rendering follows recorded api.openai.com traffic:
// response.created and response.in_progress, then one output item per
// reasoning summary, message and function call, each framed by
// output_item.added / output_item.done with its deltas in between, and a
// final response.completed (or response.incomplete) carrying the whole
// response with usage. Every event has a sequence_number.

// responsesStatus maps the finish reason to the response status and the
// incomplete_details reason.
func responsesStatus(t *turn) (status, reason string) {
	if t.refusalDefault {
		return "completed", ""
	}
	switch t.finish {
	case llm.FinishStop, llm.FinishToolCalls:
		return "completed", ""
	case llm.FinishLength:
		return "incomplete", "max_output_tokens"
	}
	return "incomplete", string(t.finish)
}

func (t *turn) responsesUsage() map[string]any {
	u := t.usage
	return map[string]any{
		"input_tokens":          u.InputTokens,
		"input_tokens_details":  map[string]any{"cached_tokens": u.CacheReadTokens, "cache_write_tokens": u.CacheWriteTokens},
		"output_tokens":         u.OutputTokens,
		"output_tokens_details": map[string]any{"reasoning_tokens": u.ReasoningTokens},
		"total_tokens":          u.TotalTokens,
	}
}

// responseObject is the response as the events and the non-streamed body
// show it. Request fields a real server echoes are echoed.
func (t *turn) responseObject(status, reason string, output []any, final bool) map[string]any {
	j := t.req.JSON
	echo := func(key string, def any) any {
		if v, ok := j[key]; ok && v != nil {
			return v
		}
		return def
	}
	resp := map[string]any{
		"id": "resp_" + t.id, "object": "response", "created_at": t.created, "status": status,
		"background": false, "completed_at": nil, "error": nil, "incomplete_details": nil,
		"instructions": echo("instructions", nil), "max_output_tokens": echo("max_output_tokens", nil),
		"model": t.model, "output": output, "parallel_tool_calls": echo("parallel_tool_calls", true),
		"previous_response_id": echo("previous_response_id", nil),
		"reasoning":            echo("reasoning", map[string]any{"effort": nil, "summary": nil}),
		"service_tier":         "default", "store": echo("store", true), "temperature": echo("temperature", 1.0),
		"text":        map[string]any{"format": map[string]any{"type": "text"}, "verbosity": "medium"},
		"tool_choice": echo("tool_choice", "auto"), "tools": echo("tools", []any{}),
		"top_p": echo("top_p", 1.0), "truncation": "disabled", "usage": nil, "user": nil, "metadata": map[string]any{},
	}
	if final {
		resp["usage"] = t.responsesUsage()
		if status == "completed" {
			resp["completed_at"] = t.created
		}
		if reason != "" {
			resp["incomplete_details"] = map[string]any{"reason": reason}
		}
	}
	return resp
}

// responsesItems builds the finished output items and their ids.
func (t *turn) responsesItems() (reasoning, message map[string]any, calls []map[string]any) {
	r := t.reply
	if r.Empty {
		return nil, nil, nil
	}
	if r.Reasoning != "" {
		reasoning = map[string]any{
			"id": "rs_" + token(t.req.Index, "rs", 0, 48), "type": "reasoning", "content": []any{},
			"summary": []any{map[string]any{"type": "summary_text", "text": r.Reasoning}},
		}
		sum := sha256.Sum256([]byte(r.Reasoning))
		reasoning["encrypted_content"] = "gAAAAA" + base64.URLEncoding.EncodeToString(append([]byte("llmtest-reasoning:"), sum[:]...))
	}
	if r.Text != "" || r.Refusal != "" {
		var content []any
		if r.Text != "" {
			content = append(content, map[string]any{"type": "output_text", "annotations": []any{}, "logprobs": []any{}, "text": r.Text})
		}
		if r.Refusal != "" {
			content = append(content, map[string]any{"type": "refusal", "refusal": r.Refusal})
		}
		message = map[string]any{
			"id": "msg_" + token(t.req.Index, "msg", 0, 48), "type": "message", "status": "completed",
			"content": content, "role": "assistant",
		}
	}
	for i, c := range t.calls {
		calls = append(calls, map[string]any{
			"id": "fc_" + token(t.req.Index, "fc", i, 48), "type": "function_call", "status": "completed",
			"arguments": c.Arguments, "call_id": t.callID(i, "call_", 24), "name": c.Name,
		})
	}
	return reasoning, message, calls
}

func (t *turn) responsesOutput() []any {
	reasoning, message, calls := t.responsesItems()
	out := []any{}
	if reasoning != nil {
		out = append(out, reasoning)
	}
	if message != nil {
		out = append(out, message)
	}
	for _, c := range calls {
		out = append(out, c)
	}
	return out
}

func responsesBody(t *turn) []byte {
	status, reason := responsesStatus(t)
	b, _ := json.MarshalIndent(t.responseObject(status, reason, t.responsesOutput(), true), "", "  ")
	return b
}

func responsesEvents(t *turn) []event {
	var out []event
	seq := 0
	add := func(typ string, fields map[string]any) {
		fields["type"] = typ
		fields["sequence_number"] = seq
		seq++
		b, _ := json.Marshal(fields)
		out = append(out, event{name: typ, data: b})
	}
	add("response.created", map[string]any{"response": t.responseObject("in_progress", "", []any{}, false)})
	add("response.in_progress", map[string]any{"response": t.responseObject("in_progress", "", []any{}, false)})

	reasoning, message, calls := t.responsesItems()
	idx := 0
	if reasoning != nil {
		id := reasoning["id"].(string)
		added := maps.Clone(reasoning)
		added["summary"] = []any{}
		add("response.output_item.added", map[string]any{"item": added, "output_index": idx})
		add("response.reasoning_summary_part.added", map[string]any{
			"item_id": id, "output_index": idx, "summary_index": 0,
			"part": map[string]any{"type": "summary_text", "text": ""},
		})
		for _, w := range words(t.reply.Reasoning) {
			add("response.reasoning_summary_text.delta", map[string]any{"delta": w, "item_id": id, "output_index": idx, "summary_index": 0})
		}
		add("response.reasoning_summary_text.done", map[string]any{"item_id": id, "output_index": idx, "summary_index": 0, "text": t.reply.Reasoning})
		add("response.reasoning_summary_part.done", map[string]any{
			"item_id": id, "output_index": idx, "summary_index": 0,
			"part": map[string]any{"type": "summary_text", "text": t.reply.Reasoning},
		})
		add("response.output_item.done", map[string]any{"item": reasoning, "output_index": idx})
		idx++
	}
	if message != nil {
		id := message["id"].(string)
		added := maps.Clone(message)
		added["status"] = "in_progress"
		added["content"] = []any{}
		add("response.output_item.added", map[string]any{"item": added, "output_index": idx})
		for ci, part := range message["content"].([]any) {
			p := part.(map[string]any)
			frame := func(typ string, extra map[string]any) {
				f := map[string]any{"content_index": ci, "item_id": id, "output_index": idx}
				for k, v := range extra {
					f[k] = v
				}
				add(typ, f)
			}
			if p["type"] == "refusal" {
				frame("response.content_part.added", map[string]any{"part": map[string]any{"type": "refusal", "refusal": ""}})
				for _, w := range words(t.reply.Refusal) {
					frame("response.refusal.delta", map[string]any{"delta": w})
				}
				frame("response.refusal.done", map[string]any{"refusal": t.reply.Refusal})
			} else {
				frame("response.content_part.added", map[string]any{"part": map[string]any{"type": "output_text", "annotations": []any{}, "logprobs": []any{}, "text": ""}})
				for _, w := range words(t.reply.Text) {
					frame("response.output_text.delta", map[string]any{"delta": w, "logprobs": []any{}})
				}
				frame("response.output_text.done", map[string]any{"text": t.reply.Text, "logprobs": []any{}})
			}
			frame("response.content_part.done", map[string]any{"part": p})
		}
		add("response.output_item.done", map[string]any{"item": message, "output_index": idx})
		idx++
	}
	for _, c := range calls {
		id := c["id"].(string)
		args := c["arguments"].(string)
		added := maps.Clone(c)
		added["status"] = "in_progress"
		added["arguments"] = ""
		add("response.output_item.added", map[string]any{"item": added, "output_index": idx})
		for _, f := range fragments(args, argFragment) {
			add("response.function_call_arguments.delta", map[string]any{"delta": f, "item_id": id, "output_index": idx})
		}
		add("response.function_call_arguments.done", map[string]any{"arguments": args, "item_id": id, "output_index": idx})
		add("response.output_item.done", map[string]any{"item": c, "output_index": idx})
		idx++
	}

	status, reason := responsesStatus(t)
	final := "response.completed"
	if status == "incomplete" {
		final = "response.incomplete"
	}
	add(final, map[string]any{"response": t.responseObject(status, reason, t.responsesOutput(), true)})
	return out
}
