package openai

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/hermes-go/hermes/llm"
)

// chatStream accumulates Chat Completions chunks into one response and
// forwards deltas to the sink as they arrive.
type chatStream struct {
	sink func(llm.Delta)

	id, model string
	chunks    int
	sawChoice bool
	finish    string
	usage     wireUsage
	hasUsage  bool

	content strings.Builder // raw content, <think> blocks included
	think   thinkSplitter
	refusal strings.Builder

	// reasoning by source, de-duplicated at the end
	rContent, rField, rDetails strings.Builder
	details                    detailMerger

	calls     []*callSlot
	slotOf    map[int64]int // provider index -> slot in calls
	toolBegan bool
}

type callSlot struct {
	id, name  string
	args      strings.Builder
	announced bool
}

func (s *chatStream) chunk(c *chatChunk) {
	s.chunks++
	if c.ID != "" {
		s.id = c.ID
	}
	if c.Model != "" {
		s.model = c.Model
	}
	// Usage arrives in a chunk of its own (OpenAI with include_usage) or
	// with the finish chunk (OpenRouter, z.ai, Kimi); the last one wins.
	if c.Usage != nil && (c.Usage.PromptTokens > 0 || c.Usage.CompletionTokens > 0) {
		s.usage, s.hasUsage = *c.Usage, true
	}
	for i := range c.Choices {
		ch := &c.Choices[i]
		if ch.Index != 0 {
			continue // only one choice is ever requested
		}
		s.sawChoice = true
		s.delta(&ch.Delta)
		if ch.FinishReason != "" {
			s.finish = ch.FinishReason
		}
	}
}

func (s *chatStream) delta(d *chunkDelta) {
	rc, rf := d.ReasoningContent, d.Reasoning
	var dt string
	if raw := d.ReasoningDetails; len(raw) > 0 && string(raw) != "null" {
		s.details.add(raw)
		dt = detailsText(raw, "")
	}
	s.rContent.WriteString(rc)
	s.rField.WriteString(rf)
	s.rDetails.WriteString(dt)
	// The same thought often comes through two fields; show it once.
	switch {
	case rc != "":
		s.sink(llm.Delta{Kind: llm.DeltaReasoning, Text: rc})
	case rf != "":
		s.sink(llm.Delta{Kind: llm.DeltaReasoning, Text: rf})
	case dt != "":
		s.sink(llm.Delta{Kind: llm.DeltaReasoning, Text: dt})
	}

	if d.Content != "" {
		s.content.WriteString(string(d.Content))
		vis, th := s.think.feed(string(d.Content))
		s.emitText(vis, th)
	}
	s.refusal.WriteString(d.Refusal)

	for i := range d.ToolCalls {
		s.toolDelta(&d.ToolCalls[i])
	}
	if d.FunctionCall != nil {
		s.toolDelta(&chunkToolCall{Index: legacyCallIndex, Function: *d.FunctionCall})
	}
}

// legacyCallIndex is where a deprecated function_call streams: apart from
// the indexes of tool_calls, which start at 0.
const legacyCallIndex = -1

func (s *chatStream) emitText(vis, th string) {
	if th != "" {
		s.sink(llm.Delta{Kind: llm.DeltaReasoning, Text: th})
	}
	// Text after a tool call began is kept but not shown: models narrate
	// their call there, and the call itself is what the user sees.
	if vis != "" && !s.toolBegan {
		s.sink(llm.Delta{Kind: llm.DeltaText, Text: vis})
	}
}

func (s *chatStream) toolDelta(tc *chunkToolCall) {
	if s.slotOf == nil {
		s.slotOf = map[int64]int{}
	}
	slot, ok := s.slotOf[tc.Index]
	// Some servers (Ollama) reuse index 0 for every parallel call; a new id
	// at a known index starts a new call.
	if ok && tc.ID != "" && s.calls[slot].id != "" && s.calls[slot].id != tc.ID {
		ok = false
	}
	if !ok {
		slot = len(s.calls)
		s.slotOf[tc.Index] = slot
		s.calls = append(s.calls, &callSlot{})
	}
	if !s.toolBegan {
		// Flush text held back while a tag was undecided.
		s.emitText(s.think.flush())
		s.toolBegan = true
	}
	cs := s.calls[slot]
	if tc.ID != "" {
		cs.id = tc.ID
	}
	// Names are assigned, never concatenated: some providers resend the
	// full name in later deltas.
	if tc.Function.Name != "" {
		cs.name = tc.Function.Name
	}
	cs.args.WriteString(tc.Function.Arguments)
	if cs.name != "" && !cs.announced {
		cs.announced = true
		s.sink(llm.Delta{Kind: llm.DeltaToolCall, ToolName: cs.name, ToolIndex: slot})
	}
}

// response assembles what arrived. A stream is complete when it carried
// a finish_reason or ended with [DONE] (done); without either it was cut
// short. A complete stream without a finish_reason is invalid.
func (s *chatStream) response(provider string, done bool) (*llm.Response, error) {
	switch {
	case s.finish == "" && !done:
		return nil, cutShort(provider, fmt.Sprintf("stream ended without a finish_reason or [DONE] (%d chunks received)", s.chunks))
	case !s.sawChoice:
		return nil, invalidResponse(provider, "stream ended without any choices")
	}
	if !s.toolBegan {
		s.emitText(s.think.flush())
	}
	a := assembly{
		id: s.id, model: s.model, content: s.content.String(),
		refusal: s.refusal.String(), finish: s.finish,
		usage: s.usage, hasUsage: s.hasUsage,
		details: s.details.raw(),
	}
	a.reasoning.add(s.rField.String())
	a.reasoning.add(s.rContent.String())
	a.reasoning.add(s.rDetails.String())
	// Arguments are kept as they came, valid JSON or not: only the finish
	// reason says whether the output limit cut them, and a call that does
	// not parse reaches the model as a tool error it can correct.
	for _, cs := range s.calls {
		a.calls = append(a.calls, llm.ToolCall{ID: cs.id, Name: cs.name, Arguments: cs.args.String()})
	}
	return a.response(provider)
}

// detailsText joins the readable text of a reasoning_details array.
func detailsText(raw []byte, sep string) string {
	var entries []json.RawMessage
	if json.Unmarshal(raw, &entries) != nil {
		return ""
	}
	var parts []string
	for _, e := range entries {
		if t := detailText(e); t != "" {
			parts = append(parts, t)
		}
	}
	return strings.Join(parts, sep)
}
