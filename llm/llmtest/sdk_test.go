package llmtest_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	aoption "github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"

	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
)

// The drivers below call the fake server through the official SDKs, the
// way a transport would, and reduce what the SDK parsed to one shape so a
// scenario table can run against every wire format.

// got is what a client made of one reply.
type got struct {
	Text      string
	Reasoning string
	Refusal   string
	Signature string
	Calls     []llm.ToolCall
	Finish    string // the wire value: finish_reason, status[/reason], stop_reason
	Usage     llm.Usage
	Model     string
	Deltas    int // streamed text fragments seen
}

// call makes one request in format, streamed or not, with a user message.
type call func(ctx context.Context, srv *llmtest.Server, stream bool) (got, error)

var formats = []struct {
	name   string
	format llm.APIMode
	call   call
}{
	{"chat", llm.ChatCompletions, callChat},
	{"responses", llm.CodexResponses, callResponses},
	{"anthropic", llm.AnthropicMessages, callAnthropic},
}

func openaiClient(srv *llmtest.Server) openai.Client {
	return openai.NewClient(option.WithBaseURL(srv.URL()), option.WithAPIKey("sk-test"), option.WithMaxRetries(0))
}

func anthropicClient(srv *llmtest.Server) anthropic.Client {
	return anthropic.NewClient(aoption.WithBaseURL(srv.AnthropicURL()), aoption.WithAPIKey("sk-ant-test"), aoption.WithMaxRetries(0))
}

func chatParams() openai.ChatCompletionNewParams {
	return openai.ChatCompletionNewParams{
		Model:    "gpt-4o",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.SystemMessage("You are terse."), openai.UserMessage("hello")},
	}
}

func callChat(ctx context.Context, srv *llmtest.Server, stream bool) (got, error) {
	c := openaiClient(srv)
	p := chatParams()
	if !stream {
		resp, err := c.Chat.Completions.New(ctx, p)
		if err != nil {
			return got{}, err
		}
		return fromChat(resp, extraString(resp.Choices, "reasoning_content")), nil
	}
	p.StreamOptions = openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}
	s := c.Chat.Completions.NewStreaming(ctx, p)
	defer s.Close()
	var acc openai.ChatCompletionAccumulator
	var reasoning strings.Builder
	deltas := 0
	for s.Next() {
		chunk := s.Current()
		acc.AddChunk(chunk)
		if len(chunk.Choices) > 0 {
			d := chunk.Choices[0].Delta
			if d.Content != "" {
				deltas++
			}
			if f, ok := d.JSON.ExtraFields["reasoning_content"]; ok {
				var r string
				_ = json.Unmarshal([]byte(f.Raw()), &r)
				reasoning.WriteString(r)
			}
		}
	}
	g := fromChat(&acc.ChatCompletion, reasoning.String())
	g.Deltas = deltas
	return g, s.Err()
}

func extraString(choices []openai.ChatCompletionChoice, key string) string {
	if len(choices) == 0 {
		return ""
	}
	f, ok := choices[0].Message.JSON.ExtraFields[key]
	if !ok {
		return ""
	}
	var s string
	_ = json.Unmarshal([]byte(f.Raw()), &s)
	return s
}

func fromChat(cc *openai.ChatCompletion, reasoning string) got {
	g := got{Reasoning: reasoning, Model: cc.Model, Usage: llm.Usage{
		InputTokens:     cc.Usage.PromptTokens,
		OutputTokens:    cc.Usage.CompletionTokens,
		CacheReadTokens: cc.Usage.PromptTokensDetails.CachedTokens,
		ReasoningTokens: cc.Usage.CompletionTokensDetails.ReasoningTokens,
		TotalTokens:     cc.Usage.TotalTokens,
	}}
	if len(cc.Choices) == 0 {
		g.Finish = "(no choices)"
		return g
	}
	ch := cc.Choices[0]
	g.Text, g.Refusal, g.Finish = ch.Message.Content, ch.Message.Refusal, ch.FinishReason
	for _, tc := range ch.Message.ToolCalls {
		g.Calls = append(g.Calls, llm.ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
	}
	return g
}

func responsesParams() responses.ResponseNewParams {
	return responses.ResponseNewParams{
		Model:        "gpt-5",
		Instructions: openai.String("You are terse."),
		Input:        responses.ResponseNewParamsInputUnion{OfString: openai.String("hello")},
		Include:      []responses.ResponseIncludable{responses.ResponseIncludableReasoningEncryptedContent},
	}
}

func callResponses(ctx context.Context, srv *llmtest.Server, stream bool) (got, error) {
	c := openaiClient(srv)
	p := responsesParams()
	if !stream {
		resp, err := c.Responses.New(ctx, p)
		if err != nil {
			return got{}, err
		}
		return fromResponse(resp), nil
	}
	s := c.Responses.NewStreaming(ctx, p)
	defer s.Close()
	var final *responses.Response
	var text strings.Builder
	deltas := 0
	for s.Next() {
		switch ev := s.Current().AsAny().(type) {
		case responses.ResponseTextDeltaEvent:
			text.WriteString(ev.Delta)
			deltas++
		case responses.ResponseCompletedEvent:
			final = &ev.Response
		case responses.ResponseIncompleteEvent:
			final = &ev.Response
		}
	}
	if err := s.Err(); err != nil {
		return got{}, err
	}
	if final == nil {
		return got{Text: text.String(), Finish: "(no final event)"}, nil
	}
	g := fromResponse(final)
	if text.String() != g.Text {
		g.Text = "streamed " + text.String() + " but completed with " + g.Text
	}
	g.Deltas = deltas
	return g, nil
}

func fromResponse(r *responses.Response) got {
	g := got{Text: r.OutputText(), Model: r.Model, Finish: string(r.Status), Usage: llm.Usage{
		InputTokens:     r.Usage.InputTokens,
		OutputTokens:    r.Usage.OutputTokens,
		CacheReadTokens: r.Usage.InputTokensDetails.CachedTokens,
		ReasoningTokens: r.Usage.OutputTokensDetails.ReasoningTokens,
		TotalTokens:     r.Usage.TotalTokens,
	}}
	if reason := r.IncompleteDetails.Reason; reason != "" {
		g.Finish += "/" + reason
	}
	if len(r.Output) == 0 {
		g.Finish += " (no output)"
	}
	for _, item := range r.Output {
		switch it := item.AsAny().(type) {
		case responses.ResponseReasoningItem:
			for _, s := range it.Summary {
				g.Reasoning += s.Text
			}
			g.Signature = it.EncryptedContent
		case responses.ResponseOutputMessage:
			for _, part := range it.Content {
				if part.Type == "refusal" {
					g.Refusal += part.Refusal
				}
			}
		case responses.ResponseFunctionToolCall:
			g.Calls = append(g.Calls, llm.ToolCall{ID: it.CallID, Name: it.Name, Arguments: it.Arguments})
		}
	}
	return g
}

func anthropicParams() anthropic.MessageNewParams {
	return anthropic.MessageNewParams{
		Model:     "claude-sonnet-4-20250514",
		MaxTokens: 1024,
		System:    []anthropic.TextBlockParam{{Text: "You are terse."}},
		Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("hello"))},
	}
}

func callAnthropic(ctx context.Context, srv *llmtest.Server, stream bool) (got, error) {
	c := anthropicClient(srv)
	p := anthropicParams()
	if !stream {
		msg, err := c.Messages.New(ctx, p)
		if err != nil {
			return got{}, err
		}
		return fromAnthropic(msg), nil
	}
	s := c.Messages.NewStreaming(ctx, p)
	defer s.Close()
	var msg anthropic.Message
	deltas := 0
	for s.Next() {
		ev := s.Current()
		if err := msg.Accumulate(ev); err != nil {
			return got{}, err
		}
		if ev.Type == "content_block_delta" && ev.Delta.Type == "text_delta" {
			deltas++
		}
	}
	if err := s.Err(); err != nil {
		return got{}, err
	}
	g := fromAnthropic(&msg)
	g.Deltas = deltas
	return g, nil
}

func fromAnthropic(m *anthropic.Message) got {
	g := got{Model: string(m.Model), Finish: string(m.StopReason), Usage: llm.Usage{
		InputTokens:     m.Usage.InputTokens + m.Usage.CacheReadInputTokens + m.Usage.CacheCreationInputTokens,
		OutputTokens:    m.Usage.OutputTokens,
		CacheReadTokens: m.Usage.CacheReadInputTokens,
	}}
	g.Usage.TotalTokens = g.Usage.InputTokens + g.Usage.OutputTokens
	var texts []string
	for _, b := range m.Content {
		switch b.Type {
		case "text":
			texts = append(texts, b.Text)
		case "thinking":
			g.Reasoning += b.Thinking
			g.Signature = b.Signature
		case "tool_use":
			g.Calls = append(g.Calls, llm.ToolCall{ID: b.ID, Name: b.Name, Arguments: string(b.Input)})
		}
	}
	g.Text = strings.Join(texts, "")
	if len(m.Content) == 0 {
		g.Finish += " (no content)"
	}
	return g
}

// mustCall fails the test when the call fails.
func mustCall(t *testing.T, c call, srv *llmtest.Server, stream bool) got {
	t.Helper()
	g, err := c(t.Context(), srv, stream)
	if err != nil {
		t.Fatalf("call: %v", err)
	}
	return g
}
