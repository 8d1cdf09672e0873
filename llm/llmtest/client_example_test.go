package llmtest_test

import (
	"context"
	"fmt"

	"github.com/hermes-go/hermes/agent"
	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
	"github.com/hermes-go/hermes/tool"
)

// A Client stands in for the model when the code under test takes an
// llm.Client: here an agent runs a tool turn with no HTTP at all. In a
// test, pass t to NewClient instead of nil; the test then fails on calls
// the script could not answer.
func ExampleClient() {
	model := llmtest.NewClient(nil)
	model.Enqueue(
		llmtest.Reply{ToolCalls: []llm.ToolCall{{ID: "call_1", Name: "clock"}}},
		llmtest.Reply{Text: "It is noon."},
	)
	clock := tool.Func{S: tool.Spec{Name: "clock", Description: "The time of day."},
		Fn: func(context.Context, tool.Call) (tool.Result, error) { return tool.Text("12:00"), nil }}
	a := agent.New(agent.Config{Client: model, Model: "test-model", Tools: tool.NewRegistry(clock)})

	res, err := a.Run(context.Background(), agent.Input{Message: "What time is it?"})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.FinalResponse, res.ExitReason)

	sent := model.Requests()[1].Messages // what the agent sent back
	last := sent[len(sent)-1]
	fmt.Println(last.Role, last.ToolCallID, last.Content)
	// Output:
	// It is noon. text_response
	// tool call_1 12:00
}
