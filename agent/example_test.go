package agent_test

import (
	"context"
	"fmt"

	"github.com/hermes-go/hermes/agent"
	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/tool"
)

// model is a stand-in llm.Client: it asks for the clock tool, then
// answers with what the tool said. A real agent uses a transport
// (llm/openai, llm/anthropic) or the runtime package app.
var model = llm.ClientFunc(func(ctx context.Context, req *llm.Request, sink func(llm.Delta)) (*llm.Response, error) {
	last := req.Messages[len(req.Messages)-1]
	if last.Role != llm.RoleTool {
		return &llm.Response{Message: llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "c1", Name: "clock", Arguments: `{}`}}}, FinishReason: llm.FinishToolCalls}, nil
	}
	return &llm.Response{Message: llm.Assistant("It is " + last.Content + "."), FinishReason: llm.FinishStop}, nil
})

var clock = tool.Func{S: tool.Spec{Name: "clock", Description: "The time of day."},
	Fn: func(context.Context, tool.Call) (tool.Result, error) { return tool.Text("noon"), nil }}

// Run takes a message, calls the model, runs the tools it asks for, and
// loops until the model answers.
func ExampleAgent_Run() {
	a := agent.New(agent.Config{Client: model, Model: "any", Tools: tool.NewRegistry(clock)})
	res, err := a.Run(context.Background(), agent.Input{Message: "What time is it?"})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.FinalResponse)
	fmt.Println(res.ExitReason, res.Completed, res.APICalls, "calls,", len(res.Messages), "messages")
	// Output:
	// It is noon.
	// text_response true 2 calls, 4 messages
}

// Stream yields the turn's events in order on the caller's goroutine; the
// last one carries the Result.
func ExampleAgent_Stream() {
	a := agent.New(agent.Config{Client: model, Model: "any", Tools: tool.NewRegistry(clock)})
	for e, err := range a.Stream(context.Background(), agent.Input{Message: "What time is it?"}) {
		if err != nil {
			panic(err)
		}
		switch e.Kind {
		case agent.EventToolStarted:
			fmt.Println("running", e.Tool.Name)
		case agent.EventToolFinished:
			fmt.Println(e.Tool.Name, "said", e.Tool.Result)
		case agent.EventDone:
			fmt.Println("answer:", e.Result.FinalResponse)
		}
	}
	// Output:
	// running clock
	// clock said noon
	// answer: It is noon.
}
