package openai

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/hermes-go/hermes/llm"
)

// responsesStream follows Responses API stream events: it forwards deltas
// to the sink and keeps what arrived, in case the final response.completed
// event comes with an empty output (some proxies send it so).
type responsesStream struct {
	sink func(llm.Delta)

	text      strings.Builder
	refusal   strings.Builder
	reasoning strings.Builder
	lastPart  string // item id + summary index of the last reasoning delta

	calls     []*callSlot
	slotOf    map[string]int // item id -> slot
	toolBegan bool

	events int
	final  *wireResponse
}

func (s *responsesStream) event(provider string, ev *responsesEvent) error {
	s.events++
	switch ev.Type {
	case "response.output_item.added":
		if ev.Item.Type == "function_call" {
			s.call(ev.Item.ID, ev.Item.CallID, ev.Item.Name)
		}
	case "response.function_call_arguments.delta":
		if i, ok := s.slotOf[ev.ItemID]; ok {
			s.calls[i].args.WriteString(ev.Delta)
		}
	case "response.output_text.delta":
		s.text.WriteString(ev.Delta)
		if !s.toolBegan && ev.Delta != "" {
			s.sink(llm.Delta{Kind: llm.DeltaText, Text: ev.Delta})
		}
	case "response.refusal.delta":
		s.refusal.WriteString(ev.Delta)
	case "response.reasoning_summary_text.delta", "response.reasoning_text.delta":
		part := ev.ItemID + "/" + ev.Type + "/" + strconv.FormatInt(ev.SummaryIndex, 10) + "/" + strconv.FormatInt(ev.ContentIndex, 10)
		if s.lastPart != "" && part != s.lastPart {
			s.reasoning.WriteString("\n\n")
		}
		s.lastPart = part
		s.reasoning.WriteString(ev.Delta)
		if ev.Delta != "" {
			s.sink(llm.Delta{Kind: llm.DeltaReasoning, Text: ev.Delta})
		}
	case "response.completed", "response.incomplete", "response.failed":
		var resp wireResponse
		if err := decodeEvent(provider, ev.Response, &resp); err != nil {
			return err
		}
		if resp.Status == "" {
			// The event names the status; some proxies leave the field out.
			resp.Status = strings.TrimPrefix(ev.Type, "response.")
		}
		s.final = &resp
	}
	return nil
}

func (s *responsesStream) call(itemID, callID, name string) {
	if s.slotOf == nil {
		s.slotOf = map[string]int{}
	}
	s.slotOf[itemID] = len(s.calls)
	s.calls = append(s.calls, &callSlot{id: callID, name: name, announced: name != ""})
	s.toolBegan = true
	if name != "" {
		s.sink(llm.Delta{Kind: llm.DeltaToolCall, ToolName: name, ToolIndex: len(s.calls) - 1})
	}
}

// fromResponse converts a final Responses API response. streamed, when
// not nil, supplies what the stream delivered if the output list is empty.
func fromResponse(provider string, res *wireResponse, streamed *responsesStream) (*llm.Response, error) {
	if res == nil {
		return nil, invalidResponse(provider, "empty response")
	}
	if err := checkStatus(provider, res); err != nil {
		return nil, err
	}
	var (
		text, refusal strings.Builder
		reasoning     reasoningParts
		items         []json.RawMessage
		calls         []llm.ToolCall
	)
	for _, it := range res.Output {
		switch it.Type {
		case "message":
			for _, c := range it.Content {
				switch c.Type {
				case "output_text":
					text.WriteString(c.Text)
				case "refusal":
					refusal.WriteString(c.Refusal)
				}
			}
		case "function_call":
			calls = append(calls, llm.ToolCall{ID: it.CallID, Name: it.Name, Arguments: it.Arguments})
		case "reasoning":
			items = append(items, it.raw)
			var parts []string
			for _, s := range it.Summary {
				parts = append(parts, s.Text)
			}
			reasoning.add(strings.Join(parts, "\n\n"))
			parts = parts[:0]
			for _, c := range it.Content {
				parts = append(parts, c.Text)
			}
			reasoning.add(strings.Join(parts, "\n\n"))
		}
	}
	if len(res.Output) == 0 && streamed != nil {
		text.WriteString(streamed.text.String())
		refusal.WriteString(streamed.refusal.String())
		reasoning.add(streamed.reasoning.String())
		for _, cs := range streamed.calls {
			calls = append(calls, llm.ToolCall{ID: cs.id, Name: cs.name, Arguments: cs.args.String()})
		}
	}
	if text.Len() == 0 && refusal.Len() == 0 && len(calls) == 0 && len(items) == 0 {
		return nil, invalidResponse(provider, "response "+res.Status+" with no output")
	}
	visible, inline := llm.SplitThink(text.String())
	reasoning.add(inline)
	out := &llm.Response{
		Model:   res.Model,
		ID:      res.ID,
		Refusal: strings.TrimSpace(refusal.String()),
		Usage:   responsesUsage(res.Usage),
	}
	finish, err := responsesFinish(provider, res, len(calls) > 0, out.Refusal != "")
	if err != nil {
		return nil, err
	}
	out.FinishReason = finish
	out.Message = llm.Message{
		Role:           llm.RoleAssistant,
		Content:        visible,
		ToolCalls:      calls,
		Reasoning:      reasoning.String(),
		ReasoningItems: items,
		FinishReason:   out.FinishReason,
	}
	return out, nil
}

// checkStatus accepts a response that ended, completed or incomplete:
// one still in progress, failed, or with a status this transport does not
// know is an invalid response.
func checkStatus(provider string, res *wireResponse) error {
	switch res.Status {
	case "completed", "incomplete":
		return nil
	case "failed", "cancelled":
		msg := "response " + res.Status
		if res.Error.Message != "" {
			msg += ": " + res.Error.Message
		}
		return invalidResponse(provider, msg)
	case "in_progress", "queued":
		return invalidResponse(provider, "response is still "+res.Status+": it never completed")
	case "":
		return invalidResponse(provider, "response has no status")
	}
	return invalidResponse(provider, fmt.Sprintf("unknown response status %q", res.Status))
}

// responsesFinish is the finish reason of a completed or incomplete
// response. An incomplete one must say why, with a reason this transport
// knows.
func responsesFinish(provider string, res *wireResponse, hasCalls, refused bool) (llm.FinishReason, error) {
	if res.Status == "incomplete" {
		switch r := res.IncompleteDetails.Reason; r {
		case "content_filter":
			return llm.FinishContentFilter, nil
		case "max_output_tokens", "length":
			return llm.FinishLength, nil
		case "":
			return "", invalidResponse(provider, "response incomplete without a reason")
		default:
			return "", invalidResponse(provider, fmt.Sprintf("response incomplete for an unknown reason %q", r))
		}
	}
	switch {
	case refused:
		return llm.FinishContentFilter, nil
	case hasCalls:
		return llm.FinishToolCalls, nil
	}
	return llm.FinishStop, nil
}

func responsesUsage(u wireRespUsage) llm.Usage {
	out := llm.Usage{
		InputTokens:      u.InputTokens,
		OutputTokens:     u.OutputTokens,
		CacheReadTokens:  u.InputTokensDetails.CachedTokens,
		CacheWriteTokens: u.InputTokensDetails.CacheWriteTokens,
		ReasoningTokens:  u.OutputTokensDetails.ReasoningTokens,
		TotalTokens:      u.TotalTokens,
	}
	if out.TotalTokens == 0 {
		out.TotalTokens = out.InputTokens + out.OutputTokens
	}
	return out
}
