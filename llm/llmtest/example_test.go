package llmtest_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
)

// A tool turn scripted once and checked from both sides: what the client
// received, and what it sent back. In a test, pass t to NewServer instead
// of nil; the server then closes itself and fails the test on requests the
// script could not answer.
func Example() {
	srv := llmtest.NewServer(nil)
	defer srv.Close()
	srv.Enqueue(
		llmtest.Reply{ToolCalls: []llm.ToolCall{{ID: "call_1", Name: "terminal", Arguments: `{"command":"ls"}`}}},
		llmtest.Reply{Text: "Two files: a.txt and b.txt."},
	)

	ctx := context.Background()
	client := openai.NewClient(option.WithBaseURL(srv.URL()), option.WithAPIKey("sk-test"))
	params := openai.ChatCompletionNewParams{
		Model:    "gpt-4o",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("What is in this directory?")},
	}
	first, err := client.Chat.Completions.New(ctx, params)
	if err != nil {
		panic(err)
	}
	call := first.Choices[0].Message.ToolCalls[0]
	fmt.Println(call.Function.Name, call.Function.Arguments)

	params.Messages = append(params.Messages, first.Choices[0].Message.ToParam(), openai.ToolMessage("a.txt\nb.txt", call.ID))
	second, err := client.Chat.Completions.New(ctx, params)
	if err != nil {
		panic(err)
	}
	fmt.Println(second.Choices[0].Message.Content)

	sent := srv.Requests()[1].Messages()
	last := sent[len(sent)-1]
	fmt.Printf("%s %s %s %q\n", last.Role, last.ToolCallID, last.Name, last.Content)
	// Output:
	// terminal {"command":"ls"}
	// Two files: a.txt and b.txt.
	// tool call_1 terminal "a.txt\nb.txt"
}

// An error reply with no body gets the real provider's body for the status
// and the request's format.
func ExampleError() {
	srv := llmtest.NewServer(nil)
	defer srv.Close()
	srv.Enqueue(llmtest.Error(429, "").WithHeader("Retry-After", "2"))

	client := openai.NewClient(option.WithBaseURL(srv.URL()), option.WithAPIKey("sk-test"), option.WithMaxRetries(0))
	_, err := client.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{
		Model:    "gpt-4o",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")},
	})
	var apiErr *openai.Error
	if errors.As(err, &apiErr) {
		fmt.Println(apiErr.StatusCode, apiErr.Code, apiErr.Response.Header.Get("Retry-After"))
	}
	// Output:
	// 429 rate_limit_exceeded 2
}

// Hang holds a call open until the client gives up, so interrupt handling
// can be tested; Hanging says when to interrupt, with no sleeping.
func ExampleServer_Hanging() {
	srv := llmtest.NewServer(nil)
	defer srv.Close()
	srv.Enqueue(llmtest.Reply{Hang: true})

	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		r := <-srv.Hanging()
		fmt.Println("hanging:", r.Format)
		cancel() // what an interrupt does
	}()
	client := openai.NewClient(option.WithBaseURL(srv.URL()), option.WithAPIKey("sk-test"))
	_, err := client.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{
		Model:    "gpt-4o",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")},
	})
	fmt.Println(errors.Is(err, context.Canceled))
	// Output:
	// hanging: chat_completions
	// true
}
