package llmtest_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"

	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
)

var weatherSchema = map[string]any{
	"type":       "object",
	"properties": map[string]any{"location": map[string]any{"type": "string", "description": "the city"}},
	"required":   []string{"location"},
}

// roundTrip runs the two calls of a tool turn through the SDK: the model
// calls weather, the client sends the result back with the history the
// SDK rebuilt from the first response. It returns the id of the call.
type roundTrip func(ctx context.Context, srv *llmtest.Server) (callID string, err error)

func chatRoundTrip(ctx context.Context, srv *llmtest.Server) (string, error) {
	c := openaiClient(srv)
	p := chatParams()
	p.Tools = []openai.ChatCompletionToolUnionParam{openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{
		Name: "weather", Description: openai.String("Get the weather"), Parameters: weatherSchema,
	})}
	first, err := c.Chat.Completions.New(ctx, p)
	if err != nil {
		return "", err
	}
	msg := first.Choices[0].Message
	assistant := msg.ToParam()
	assistant.OfAssistant.SetExtraFields(map[string]any{"reasoning_content": extraString(first.Choices, "reasoning_content")})
	id := msg.ToolCalls[0].ID
	p.Messages = append(p.Messages, assistant, openai.ToolMessage("40 C", id))
	p.StreamOptions = openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}
	s := c.Chat.Completions.NewStreaming(ctx, p)
	defer s.Close()
	for s.Next() {
	}
	return id, s.Err()
}

func responsesRoundTrip(ctx context.Context, srv *llmtest.Server) (string, error) {
	c := openaiClient(srv)
	p := responsesParams()
	p.Tools = []responses.ToolUnionParam{responses.ToolParamOfFunction("weather", weatherSchema, false)}
	first, err := c.Responses.New(ctx, p)
	if err != nil {
		return "", err
	}
	input := responses.ResponseInputParam{responses.ResponseInputItemParamOfMessage("hello", responses.EasyInputMessageRoleUser)}
	var id string
	for _, item := range first.Output {
		switch it := item.AsAny().(type) {
		case responses.ResponseReasoningItem:
			r := it.ToParam()
			input = append(input, responses.ResponseInputItemUnionParam{OfReasoning: &r})
		case responses.ResponseFunctionToolCall:
			fc := it.ToParam()
			input = append(input, responses.ResponseInputItemUnionParam{OfFunctionCall: &fc})
			id = it.CallID
		}
	}
	out := responses.ResponseInputItemParamOfFunctionCallOutput("40 C")
	out.OfFunctionCallOutput.CallID = openai.String(id)
	p.Input = responses.ResponseNewParamsInputUnion{OfInputItemList: append(input, out)}
	s := c.Responses.NewStreaming(ctx, p)
	defer s.Close()
	for s.Next() {
	}
	return id, s.Err()
}

func anthropicRoundTrip(ctx context.Context, srv *llmtest.Server) (string, error) {
	c := anthropicClient(srv)
	p := anthropicParams()
	p.Tools = []anthropic.ToolUnionParam{anthropic.ToolUnionParamOfTool(anthropic.ToolInputSchemaParam{
		Properties: weatherSchema["properties"], Required: []string{"location"},
	}, "weather")}
	s := c.Messages.NewStreaming(ctx, p)
	var first anthropic.Message
	for s.Next() {
		if err := first.Accumulate(s.Current()); err != nil {
			return "", err
		}
	}
	s.Close()
	if err := s.Err(); err != nil {
		return "", err
	}
	var id string
	for _, b := range first.Content {
		if b.Type == "tool_use" {
			id = b.ID
		}
	}
	p.Messages = append(p.Messages, first.ToParam(),
		anthropic.NewUserMessage(anthropic.NewToolResultBlock(id, "40 C", false)))
	_, err := c.Messages.New(ctx, p)
	return id, err
}

func TestRequestsShowWhatTheClientSentBack(t *testing.T) {
	trips := []struct {
		name string
		trip roundTrip
	}{{"chat", chatRoundTrip}, {"responses", responsesRoundTrip}, {"anthropic", anthropicRoundTrip}}
	for i, tr := range trips {
		t.Run(tr.name, func(t *testing.T) {
			srv := llmtest.NewServer(t)
			srv.Enqueue(
				llmtest.Reply{Reasoning: "Use the weather tool.", ToolCalls: []llm.ToolCall{{Name: "weather", Arguments: `{"location":"Florence"}`}}},
				llmtest.Reply{Text: "It is 40 C."},
			)
			id, err := tr.trip(t.Context(), srv)
			if err != nil {
				t.Fatal(err)
			}
			reqs := srv.Requests()
			if len(reqs) != 2 {
				t.Fatalf("%d requests, want 2", len(reqs))
			}
			first, second := reqs[0], reqs[1]
			if first.Format != formats[i].format || first.Stream == second.Stream {
				t.Errorf("format %s, streams %v/%v: want %s, one streamed and one not", first.Format, first.Stream, second.Stream, formats[i].format)
			}
			if tools := second.Tools(); len(tools) != 1 || tools[0].Name != "weather" || len(tools[0].Parameters) == 0 {
				t.Errorf("Tools() = %+v", tools)
			}
			if second.System() != "You are terse." {
				t.Errorf("System() = %q", second.System())
			}
			if second.APIKey() == "" || second.Header.Get("User-Agent") == "" {
				t.Errorf("headers not recorded: %v", second.Header)
			}

			got := second.Messages()
			want := []llm.Message{
				llm.System("You are terse."),
				llm.User("hello"),
				{Role: llm.RoleAssistant, Reasoning: "Use the weather tool.",
					ToolCalls: []llm.ToolCall{{ID: id, Name: "weather", Arguments: `{"location":"Florence"}`}}},
				llm.ToolResult(id, "weather", "40 C"),
			}
			if len(got) != len(want) {
				t.Fatalf("Messages() = %s, want %s", dump(got), dump(want))
			}
			for j := range want {
				g, w := got[j], want[j]
				// Provider-signed reasoning is checked for presence only.
				hasSigned := len(g.ReasoningDetails)+len(g.ReasoningItems) > 0
				g.ReasoningDetails, g.ReasoningItems = nil, nil
				if dump([]llm.Message{g}) != dump([]llm.Message{w}) {
					t.Errorf("message %d = %s, want %s", j, dump([]llm.Message{g}), dump([]llm.Message{w}))
				}
				if j == 2 && formats[i].format != llm.ChatCompletions && !hasSigned {
					t.Errorf("the signed reasoning sent back is missing from message 2")
				}
			}
		})
	}
}

func dump(ms []llm.Message) string {
	b, _ := json.Marshal(ms)
	return string(b)
}
