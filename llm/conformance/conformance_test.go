package conformance

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/anthropic"
	"github.com/hermes-go/hermes/llm/llmtest"
	"github.com/hermes-go/hermes/llm/openai"
)

type transport struct {
	name string
	make func(srv *llmtest.Server, noStream bool) llm.Client
}

var transports = []transport{
	{"chat_completions", func(s *llmtest.Server, ns bool) llm.Client {
		return openai.NewChat(llm.Options{BaseURL: s.URL(), APIKey: "sk-test", Provider: "openai", NoStream: ns})
	}},
	{"codex_responses", func(s *llmtest.Server, ns bool) llm.Client {
		return openai.NewResponses(llm.Options{BaseURL: s.URL(), APIKey: "sk-test", Provider: "openai", NoStream: ns})
	}},
	{"anthropic_messages", func(s *llmtest.Server, ns bool) llm.Client {
		return anthropic.New(llm.Options{BaseURL: s.AnthropicURL(), APIKey: "sk-ant-test", Provider: "anthropic", NoStream: ns})
	}},
}

type scenario struct {
	name  string
	reply llmtest.Reply
	check func(t *testing.T, resp *llm.Response, err error)
}

func wantKind(k llm.ErrorKind) func(t *testing.T, resp *llm.Response, err error) {
	return func(t *testing.T, resp *llm.Response, err error) {
		pe, ok := llm.AsProviderError(err)
		if !ok || pe.Kind != k || resp != nil {
			t.Fatalf("got resp %v err %v, want a %s ProviderError", resp, err, k)
		}
	}
}

func ok(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

var scenarios = []scenario{
	{"plain text", llmtest.Reply{Text: "Hello there, friend."}, func(t *testing.T, r *llm.Response, err error) {
		ok(t, err)
		if r.Message.Content != "Hello there, friend." || r.FinishReason != llm.FinishStop || r.Usage.OutputTokens == 0 || r.Usage.InputTokens == 0 {
			t.Fatalf("response %+v", r)
		}
	}},
	{"one tool", llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "weather", Arguments: `{"city":"Florence"}`}}}, func(t *testing.T, r *llm.Response, err error) {
		ok(t, err)
		if len(r.Message.ToolCalls) != 1 || r.FinishReason != llm.FinishToolCalls {
			t.Fatalf("response %+v", r)
		}
		c := r.Message.ToolCalls[0]
		var args map[string]string
		if c.ID == "" || c.Name != "weather" || json.Unmarshal([]byte(c.Arguments), &args) != nil || args["city"] != "Florence" {
			t.Fatalf("call %+v", c)
		}
	}},
	{"two parallel tools", llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "add", Arguments: `{"a":1,"b":2}`}, {Name: "mul", Arguments: `{"a":3,"b":4}`}}}, func(t *testing.T, r *llm.Response, err error) {
		ok(t, err)
		cs := r.Message.ToolCalls
		if len(cs) != 2 || cs[0].Name != "add" || cs[1].Name != "mul" || cs[0].ID == cs[1].ID {
			t.Fatalf("calls %+v", cs)
		}
	}},
	{"thinking", llmtest.Reply{Reasoning: "Let me think about primes.", Text: "7 is prime."}, func(t *testing.T, r *llm.Response, err error) {
		ok(t, err)
		if r.Message.Reasoning != "Let me think about primes." || r.Message.Content != "7 is prime." {
			t.Fatalf("message %+v", r.Message)
		}
	}},
	{"refusal", llmtest.Reply{Refusal: "I can't help with that."}, func(t *testing.T, r *llm.Response, err error) {
		ok(t, err)
		if r.FinishReason != llm.FinishContentFilter {
			t.Fatalf("finish %q", r.FinishReason)
		}
	}},
	{"length cut", llmtest.Reply{Text: "This answer is cut", FinishReason: llm.FinishLength}, func(t *testing.T, r *llm.Response, err error) {
		ok(t, err)
		if r.FinishReason != llm.FinishLength || r.Message.Content == "" {
			t.Fatalf("response %+v", r)
		}
	}},
	{"429", llmtest.Error(429, "").WithHeader("Retry-After", "7"), func(t *testing.T, r *llm.Response, err error) {
		wantKind(llm.ErrRateLimit)(t, r, err)
		if pe, _ := llm.AsProviderError(err); pe.RetryAfter.Seconds() != 7 {
			t.Fatalf("retry after %s", pe.RetryAfter)
		}
	}},
	{"500", llmtest.Error(500, ""), wantKind(llm.ErrServer)},
	{"401", llmtest.Error(401, ""), wantKind(llm.ErrAuth)},
	{"overflow error body", llmtest.Error(400, ""), nil}, // body per format, below
}

func TestConformance(t *testing.T) {
	overflowBody := map[string]string{
		"chat_completions":   llmtest.OpenAIContextOverflowBody,
		"codex_responses":    llmtest.OpenAIContextOverflowBody,
		"anthropic_messages": llmtest.AnthropicContextOverflowBody,
	}
	for _, tr := range transports {
		for _, noStream := range []bool{false, true} {
			mode := "streamed"
			if noStream {
				mode = "not streamed"
			}
			for _, sc := range scenarios {
				t.Run(tr.name+"/"+mode+"/"+sc.name, func(t *testing.T) {
					srv := llmtest.NewServer(t)
					reply, check := sc.reply, sc.check
					if sc.name == "overflow error body" {
						reply = llmtest.Error(400, overflowBody[tr.name])
						check = func(t *testing.T, r *llm.Response, err error) {
							wantKind(llm.ErrContextOverflow)(t, r, err)
							if pe, _ := llm.AsProviderError(err); pe.ContextLimit == 0 {
								t.Fatalf("no context limit parsed from %v", err)
							}
						}
					}
					srv.Enqueue(reply)
					var deltas []llm.Delta
					req := &llm.Request{Model: "test-model", Messages: []llm.Message{llm.System("Be brief."), llm.User("hello")},
						Tools: []llm.ToolDef{{Name: "weather", Description: "weather", Parameters: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}}}`)}}}
					resp, err := tr.make(srv, noStream).Complete(context.Background(), req, func(d llm.Delta) { deltas = append(deltas, d) })
					check(t, resp, err)
					if !noStream && err == nil && resp.Message.Content != "" && llmtest.Summarize(deltas).Text == "" {
						t.Fatal("streamed text produced no text deltas")
					}
				})
			}
		}
	}
}
