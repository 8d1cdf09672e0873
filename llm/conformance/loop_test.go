package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/hermes-go/hermes/agent"
	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/tool"
)

// TestConformanceThroughTheAgentLoop runs every scenario through
// agent.Run on every backend: what the loop makes of each turn must not
// depend on the wire format it came through.
func TestConformanceThroughTheAgentLoop(t *testing.T) {
	each(t, func(t *testing.T, model llm.Client, f *fake, sc scenario, _ bool) {
		f.enqueue(sc.reply)
		f.enqueue(sc.then...)
		a := agent.New(agent.Config{Client: model, Model: "test-model", Tools: tool.NewRegistry(loopTools()...)})
		res, err := a.Run(context.Background(), agent.Input{Message: "hello", SystemMessage: "Be brief."})
		if err != nil {
			t.Fatal(err)
		}
		sent := f.sent()
		if res.APICalls != len(sent) {
			t.Fatalf("the result counts %d API calls, the provider saw %d", res.APICalls, len(sent))
		}
		sc.loop(t, res, sent)
	})
}

// loopTools are the tools the scenarios call, each answering from its
// arguments so that a result shows the call arrived whole.
func loopTools() []tool.Tool {
	number := json.RawMessage(`{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"]}`)
	arith := func(name string, op func(a, b float64) float64) tool.Tool {
		return tool.Func{S: tool.Spec{Name: name, Description: name + " two numbers", Parameters: number},
			Fn: func(_ context.Context, c tool.Call) (tool.Result, error) {
				var args struct{ A, B float64 }
				if err := json.Unmarshal(c.Args, &args); err != nil {
					return tool.Error(err.Error()), nil
				}
				return tool.Text(fmt.Sprint(op(args.A, args.B))), nil
			}}
	}
	weather := tool.Func{S: tool.Spec{Name: "weather", Description: "The weather in a city.",
		Parameters: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`)},
		Fn: func(_ context.Context, c tool.Call) (tool.Result, error) {
			var args struct{ City string }
			if err := json.Unmarshal(c.Args, &args); err != nil {
				return tool.Error(err.Error()), nil
			}
			return tool.Text("sunny in " + args.City), nil
		}}
	return []tool.Tool{
		weather,
		arith("add", func(a, b float64) float64 { return a + b }),
		arith("mul", func(a, b float64) float64 { return a * b }),
	}
}

// answered checks a turn that completed with text after calls model calls.
func answered(t *testing.T, res *agent.Result, text string, calls int) {
	t.Helper()
	if !res.Completed || res.Failed || res.Error != nil || res.ExitReason != agent.ExitText {
		t.Fatalf("turn did not complete: exit %q, error %v", res.ExitReason, res.Error)
	}
	if res.FinalResponse != text || res.APICalls != calls {
		t.Fatalf("final response %q after %d calls, want %q after %d", res.FinalResponse, res.APICalls, text, calls)
	}
	if last := res.Messages[len(res.Messages)-1]; last.Role != llm.RoleAssistant || last.Content != text {
		t.Fatalf("history ends with %+v", last)
	}
}

// failed checks a turn that failed on its first call with exit, wrapping a
// ProviderError of kind (any error when kind is empty), and kept nothing
// but the user's message.
func failed(t *testing.T, res *agent.Result, exit agent.ExitReason, kind llm.ErrorKind) {
	t.Helper()
	if !res.Failed || res.Completed || res.ExitReason != exit || res.APICalls != 1 || res.Error == nil {
		t.Fatalf("result: failed %v, exit %q, %d calls, error %v; want a failure with exit %q", res.Failed, res.ExitReason, res.APICalls, res.Error, exit)
	}
	if pe, ok := llm.AsProviderError(res.Error); kind != "" && (!ok || pe.Kind != kind) {
		t.Fatalf("error %v, want a %s ProviderError", res.Error, kind)
	}
	if len(res.Messages) != 1 || res.Messages[0].Role != llm.RoleUser {
		t.Fatalf("history after the failure: %+v", res.Messages)
	}
}

// toolResultsSent checks that the second request answered the first
// turn's calls in call order, each result ("name: output") under its
// call's id.
func toolResultsSent(t *testing.T, sent [][]llm.Message, results ...string) {
	t.Helper()
	msgs := sent[1]
	n := len(results)
	if len(msgs) < n+1 {
		t.Fatalf("second request holds %d messages", len(msgs))
	}
	asked, tools := msgs[len(msgs)-n-1], msgs[len(msgs)-n:]
	if asked.Role != llm.RoleAssistant || len(asked.ToolCalls) != n {
		t.Fatalf("the results do not follow the assistant's %d calls: %+v", n, asked)
	}
	for i, m := range tools {
		if got := m.Name + ": " + m.Content; m.Role != llm.RoleTool || got != results[i] || m.ToolCallID != asked.ToolCalls[i].ID {
			t.Errorf("result %d is %s %q for call %q, want %q for call %q", i, m.Role, got, m.ToolCallID, results[i], asked.ToolCalls[i].ID)
		}
	}
}
