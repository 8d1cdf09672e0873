package conformance

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/agent"
	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/anthropic"
	"github.com/hermes-go/hermes/llm/llmtest"
	"github.com/hermes-go/hermes/llm/openai"
)

// backend is one way of reaching a model: a wire format through its real
// transport against the llmtest Server, or the in-process llmtest.Client,
// which must answer as those transports do.
type backend struct {
	name string
	// start returns the model, streamed or not, and the fake provider
	// behind it.
	start func(t *testing.T, noStream bool) (llm.Client, *fake)
	// inProcess backends have no wire, so no non-streamed variant.
	inProcess bool
}

// fake is the provider behind a backend: where replies are scripted and
// what each request carried.
type fake struct {
	enqueue func(...llmtest.Reply)
	sent    func() [][]llm.Message
}

func overServer(transport func(srv *llmtest.Server, noStream bool) llm.Client) func(*testing.T, bool) (llm.Client, *fake) {
	return func(t *testing.T, noStream bool) (llm.Client, *fake) {
		srv := llmtest.NewServer(t)
		return transport(srv, noStream), &fake{enqueue: srv.Enqueue, sent: func() [][]llm.Message {
			var out [][]llm.Message
			for _, r := range srv.Requests() {
				out = append(out, r.Messages())
			}
			return out
		}}
	}
}

var backends = []backend{
	{name: "chat_completions", start: overServer(func(s *llmtest.Server, ns bool) llm.Client {
		return openai.NewChat(llm.Options{BaseURL: s.URL(), APIKey: "sk-test", Provider: "openai", NoStream: ns})
	})},
	{name: "codex_responses", start: overServer(func(s *llmtest.Server, ns bool) llm.Client {
		return openai.NewResponses(llm.Options{BaseURL: s.URL(), APIKey: "sk-test", Provider: "openai", NoStream: ns})
	})},
	{name: "anthropic_messages", start: overServer(func(s *llmtest.Server, ns bool) llm.Client {
		return anthropic.New(llm.Options{BaseURL: s.AnthropicURL(), APIKey: "sk-ant-test", Provider: "anthropic", NoStream: ns})
	})},
	{name: "llmtest_client", inProcess: true, start: func(t *testing.T, _ bool) (llm.Client, *fake) {
		c := llmtest.NewClient(t)
		return c, &fake{enqueue: c.Enqueue, sent: func() [][]llm.Message {
			var out [][]llm.Message
			for _, r := range c.Requests() {
				out = append(out, r.Messages)
			}
			return out
		}}
	}},
}

// scenario is one model turn, checked on a single call through a
// transport and on a whole agent.Run over it.
type scenario struct {
	name  string
	reply llmtest.Reply
	// then answers the calls the loop makes after reply: the turn after
	// tool results, the rest of a cut answer.
	then  []llmtest.Reply
	check func(t *testing.T, resp *llm.Response, err error)
	// loop checks the agent's Result; sent holds each request's messages.
	loop func(t *testing.T, res *agent.Result, sent [][]llm.Message)
	// impossible lists the runs ("backend/mode") whose wire cannot carry
	// the reply at all.
	impossible []string
}

func wantKind(k llm.ErrorKind) func(t *testing.T, resp *llm.Response, err error) {
	return wantError(k, "")
}

// wantError expects no response and a ProviderError of kind k whose
// message says msg.
func wantError(k llm.ErrorKind, msg string) func(t *testing.T, resp *llm.Response, err error) {
	return func(t *testing.T, resp *llm.Response, err error) {
		t.Helper()
		pe, ok := llm.AsProviderError(err)
		if !ok || pe.Kind != k || resp != nil || !strings.Contains(pe.Message, msg) {
			t.Fatalf("got resp %v err %v, want a %s ProviderError saying %q", resp, err, k, msg)
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
	{name: "plain text", reply: llmtest.Reply{Text: "Hello there, friend."},
		check: func(t *testing.T, r *llm.Response, err error) {
			ok(t, err)
			if r.Message.Content != "Hello there, friend." || r.FinishReason != llm.FinishStop || r.Usage.OutputTokens == 0 || r.Usage.InputTokens == 0 {
				t.Fatalf("response %+v", r)
			}
		},
		loop: func(t *testing.T, res *agent.Result, sent [][]llm.Message) {
			answered(t, res, "Hello there, friend.", 1)
			if res.Usage.InputTokens == 0 || res.Usage.OutputTokens == 0 {
				t.Fatalf("usage %+v", res.Usage)
			}
		}},
	{name: "one tool", reply: llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "weather", Arguments: `{"city":"Florence"}`}}},
		then: []llmtest.Reply{{Text: "It is sunny in Florence."}},
		check: func(t *testing.T, r *llm.Response, err error) {
			ok(t, err)
			if len(r.Message.ToolCalls) != 1 || r.FinishReason != llm.FinishToolCalls {
				t.Fatalf("response %+v", r)
			}
			c := r.Message.ToolCalls[0]
			var args map[string]string
			if c.ID == "" || c.Name != "weather" || json.Unmarshal([]byte(c.Arguments), &args) != nil || args["city"] != "Florence" {
				t.Fatalf("call %+v", c)
			}
		},
		loop: func(t *testing.T, res *agent.Result, sent [][]llm.Message) {
			answered(t, res, "It is sunny in Florence.", 2)
			toolResultsSent(t, sent, "weather: sunny in Florence")
		}},
	{name: "two parallel tools", reply: llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "add", Arguments: `{"a":1,"b":2}`}, {Name: "mul", Arguments: `{"a":3,"b":4}`}}},
		then: []llmtest.Reply{{Text: "3 and 12."}},
		check: func(t *testing.T, r *llm.Response, err error) {
			ok(t, err)
			cs := r.Message.ToolCalls
			if len(cs) != 2 || cs[0].Name != "add" || cs[1].Name != "mul" || cs[0].ID == cs[1].ID {
				t.Fatalf("calls %+v", cs)
			}
		},
		loop: func(t *testing.T, res *agent.Result, sent [][]llm.Message) {
			answered(t, res, "3 and 12.", 2)
			toolResultsSent(t, sent, "add: 3", "mul: 12")
		}},
	{name: "thinking", reply: llmtest.Reply{Reasoning: "Let me think about primes.", Text: "7 is prime."},
		check: func(t *testing.T, r *llm.Response, err error) {
			ok(t, err)
			if r.Message.Reasoning != "Let me think about primes." || r.Message.Content != "7 is prime." {
				t.Fatalf("message %+v", r.Message)
			}
		},
		loop: func(t *testing.T, res *agent.Result, sent [][]llm.Message) {
			answered(t, res, "7 is prime.", 1)
			if res.LastReasoning != "Let me think about primes." {
				t.Fatalf("last reasoning %q", res.LastReasoning)
			}
		}},
	{name: "refusal", reply: llmtest.Reply{Refusal: "I can't help with that."},
		check: func(t *testing.T, r *llm.Response, err error) {
			ok(t, err)
			if r.FinishReason != llm.FinishContentFilter {
				t.Fatalf("finish %q", r.FinishReason)
			}
		},
		loop: func(t *testing.T, res *agent.Result, sent [][]llm.Message) {
			failed(t, res, agent.ExitContentFilter, "")
			if !strings.Contains(res.Error.Error(), "I can't help with that.") {
				t.Fatalf("error %q does not carry the refusal", res.Error)
			}
		}},
	// The continuation starts with the space the cut fell before: every
	// transport keeps text verbatim, so the loop joins the pieces exactly.
	{name: "length cut", reply: llmtest.Reply{Text: "This answer is cut", FinishReason: llm.FinishLength},
		then: []llmtest.Reply{{Text: " short."}},
		check: func(t *testing.T, r *llm.Response, err error) {
			ok(t, err)
			if r.FinishReason != llm.FinishLength || r.Message.Content != "This answer is cut" {
				t.Fatalf("response %+v", r)
			}
		},
		loop: func(t *testing.T, res *agent.Result, sent [][]llm.Message) {
			answered(t, res, "This answer is cut short.", 2)
			if cont := sent[1]; cont[len(cont)-2].Content != "This answer is cut" || cont[len(cont)-1].Role != llm.RoleUser {
				t.Fatalf("the continuation request ends with %+v", cont[len(cont)-2:])
			}
		}},
	{name: "429", reply: llmtest.Error(429, "").WithHeader("Retry-After", "7"),
		check: func(t *testing.T, r *llm.Response, err error) {
			wantKind(llm.ErrRateLimit)(t, r, err)
			if pe, _ := llm.AsProviderError(err); pe.RetryAfter.Seconds() != 7 {
				t.Fatalf("retry after %s", pe.RetryAfter)
			}
		},
		loop: func(t *testing.T, res *agent.Result, sent [][]llm.Message) {
			failed(t, res, agent.ExitProviderError, llm.ErrRateLimit)
		}},
	{name: "500", reply: llmtest.Error(500, ""), check: wantKind(llm.ErrServer),
		loop: func(t *testing.T, res *agent.Result, sent [][]llm.Message) {
			failed(t, res, agent.ExitProviderError, llm.ErrServer)
		}},
	{name: "401", reply: llmtest.Error(401, ""), check: wantKind(llm.ErrAuth),
		loop: func(t *testing.T, res *agent.Result, sent [][]llm.Message) {
			failed(t, res, agent.ExitProviderError, llm.ErrAuth)
		}},
	// An empty body is the provider's own overflow body for the format.
	{name: "overflow error body", reply: llmtest.Error(400, ""),
		check: func(t *testing.T, r *llm.Response, err error) {
			wantKind(llm.ErrContextOverflow)(t, r, err)
			if pe, _ := llm.AsProviderError(err); pe.ContextLimit == 0 {
				t.Fatalf("no context limit parsed from %v", err)
			}
		},
		loop: func(t *testing.T, res *agent.Result, sent [][]llm.Message) {
			// Without a compressor there is nothing to retry with.
			failed(t, res, agent.ExitCompressionExhausted, llm.ErrContextOverflow)
		}},
}

// The faults: replies that stop before they say they are complete, or say
// it in a way the transport does not know. Each fails the call with a
// ProviderError the retry layer can act on, and nothing of it enters the
// history.
var faults = []scenario{
	// A proxy that loses its upstream and closes the response cleanly: no
	// finish event, no terminator; a non-streamed body stops half-way.
	{name: "ends without its terminator", reply: llmtest.Reply{Text: "The final answer is 42.", EndAfter: 3},
		check: wantKind(llm.ErrConnection),
		loop: func(t *testing.T, res *agent.Result, sent [][]llm.Message) {
			failed(t, res, agent.ExitProviderError, llm.ErrConnection)
			if strings.HasPrefix(res.FinalResponse, "The final") {
				t.Fatalf("the partial answer was returned: %q", res.FinalResponse)
			}
		}},
	{name: "connection dropped mid-reply", reply: llmtest.Reply{Text: "The final answer is 42.", CutAfter: 3},
		check: wantKind(llm.ErrConnection),
		loop: func(t *testing.T, res *agent.Result, sent [][]llm.Message) {
			failed(t, res, agent.ExitProviderError, llm.ErrConnection)
		}},
	// DeepSeek's reason when it runs out of capacity mid-answer.
	{name: "unknown finish reason", reply: llmtest.Reply{Text: "The final", FinishReason: "insufficient_system_resource"},
		check: wantError(llm.ErrInvalidResponse, "insufficient_system_resource"),
		loop: func(t *testing.T, res *agent.Result, sent [][]llm.Message) {
			failed(t, res, agent.ExitInvalidResponse, llm.ErrInvalidResponse)
		}},
	{name: "legacy function_call", reply: llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "weather", Arguments: `{"city":"Florence"}`}}, LegacyFunctionCall: true},
		then: []llmtest.Reply{{Text: "It is sunny in Florence."}},
		check: func(t *testing.T, r *llm.Response, err error) {
			ok(t, err)
			if len(r.Message.ToolCalls) != 1 || r.FinishReason != llm.FinishToolCalls {
				t.Fatalf("response %+v", r)
			}
			if c := r.Message.ToolCalls[0]; c.ID == "" || c.Name != "weather" || c.Arguments != `{"city":"Florence"}` {
				t.Fatalf("call %+v", c)
			}
		},
		loop: func(t *testing.T, res *agent.Result, sent [][]llm.Message) {
			answered(t, res, "It is sunny in Florence.", 2)
			toolResultsSent(t, sent, "weather: sunny in Florence")
		}},
	// Arguments that do not parse, with a normal tool_calls finish: the
	// model gets the tool's error and carries on. Only a length finish
	// means the output limit cut the call.
	{name: "invalid tool arguments", reply: llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "weather", Arguments: `{"city":"Flor`}}},
		then: []llmtest.Reply{{Text: "I sent broken arguments; the weather is unknown."}},
		// A non-streamed tool_use input is a JSON object by construction.
		impossible: []string{"anthropic_messages/not streamed"},
		check: func(t *testing.T, r *llm.Response, err error) {
			ok(t, err)
			if r.FinishReason != llm.FinishToolCalls || len(r.Message.ToolCalls) != 1 || r.Message.ToolCalls[0].Arguments != `{"city":"Flor` {
				t.Fatalf("response %+v, want the call with its arguments as sent and finish tool_calls", r)
			}
		},
		loop: func(t *testing.T, res *agent.Result, sent [][]llm.Message) {
			answered(t, res, "I sent broken arguments; the weather is unknown.", 2)
			last := sent[1][len(sent[1])-1]
			if last.Role != llm.RoleTool || !strings.Contains(last.Content, "Invalid JSON arguments") {
				t.Fatalf("the model was sent %s %q, want the tool's invalid-arguments error", last.Role, last.Content)
			}
		}},
	// OpenAI's reset headers without Retry-After: the later one is the wait.
	{name: "429 with rate-limit reset headers", reply: llmtest.Error(429, "").
		WithHeader("x-ratelimit-reset-requests", "6m0s").WithHeader("x-ratelimit-reset-tokens", "1s"),
		check: func(t *testing.T, r *llm.Response, err error) {
			wantKind(llm.ErrRateLimit)(t, r, err)
			if pe, _ := llm.AsProviderError(err); pe.RetryAfter != 6*time.Minute {
				t.Fatalf("retry after %s, want 6m0s", pe.RetryAfter)
			}
		},
		loop: func(t *testing.T, res *agent.Result, sent [][]llm.Message) {
			failed(t, res, agent.ExitProviderError, llm.ErrRateLimit)
		}},
}

func init() { scenarios = append(scenarios, faults...) }

// each runs fn for every backend, streamed and not, and every scenario.
func each(t *testing.T, fn func(t *testing.T, model llm.Client, f *fake, sc scenario, streamed bool)) {
	for _, b := range backends {
		for _, noStream := range []bool{false, true} {
			if noStream && b.inProcess {
				continue
			}
			mode := "streamed"
			if noStream {
				mode = "not streamed"
			}
			for _, sc := range scenarios {
				if slices.Contains(sc.impossible, b.name+"/"+mode) {
					continue
				}
				t.Run(b.name+"/"+mode+"/"+sc.name, func(t *testing.T) {
					model, f := b.start(t, noStream)
					fn(t, model, f, sc, !noStream)
				})
			}
		}
	}
}

func TestConformance(t *testing.T) {
	each(t, func(t *testing.T, model llm.Client, f *fake, sc scenario, streamed bool) {
		f.enqueue(sc.reply)
		var deltas []llm.Delta
		req := &llm.Request{Model: "test-model", Messages: []llm.Message{llm.System("Be brief."), llm.User("hello")},
			Tools: []llm.ToolDef{{Name: "weather", Description: "weather", Parameters: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}}}`)}}}
		resp, err := model.Complete(context.Background(), req, func(d llm.Delta) { deltas = append(deltas, d) })
		sc.check(t, resp, err)
		if streamed && err == nil && resp.Message.Content != "" && llmtest.Summarize(deltas).Text == "" {
			t.Fatal("streamed text produced no text deltas")
		}
	})
}
