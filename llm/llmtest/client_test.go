package llmtest_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
)

func hello() *llm.Request {
	return &llm.Request{Model: "test-model", Messages: []llm.Message{llm.System("Be brief."), llm.User("hello")}}
}

// complete calls c and collects what its sink got.
func complete(ctx context.Context, c llm.Client, req *llm.Request) (*llm.Response, llmtest.Streamed, error) {
	var deltas []llm.Delta
	resp, err := c.Complete(ctx, req, func(d llm.Delta) { deltas = append(deltas, d) })
	return resp, llmtest.Summarize(deltas), err
}

func TestClientAnswersWithTheScriptedTurnAndStreamsIt(t *testing.T) {
	c := llmtest.NewClient(t)
	c.Enqueue(llmtest.Reply{
		Reasoning: "The user wants the weather twice.",
		Text:      "Checking both cities.",
		ToolCalls: []llm.ToolCall{{Name: "weather", Arguments: `{"city":"Florence"}`}, {ID: "mine", Name: "weather"}},
	})
	resp, got, err := complete(t.Context(), c, hello())
	if err != nil {
		t.Fatal(err)
	}
	m := resp.Message
	if m.Role != llm.RoleAssistant || m.Content != "Checking both cities." || m.Reasoning != "The user wants the weather twice." {
		t.Fatalf("message %+v", m)
	}
	if len(m.ToolCalls) != 2 || !strings.HasPrefix(m.ToolCalls[0].ID, "call_") || m.ToolCalls[0].Arguments != `{"city":"Florence"}` ||
		m.ToolCalls[1].ID != "mine" || m.ToolCalls[1].Arguments != "{}" {
		t.Fatalf("tool calls %+v", m.ToolCalls)
	}
	if resp.FinishReason != llm.FinishToolCalls || m.FinishReason != llm.FinishToolCalls || resp.Model != "test-model" || resp.ID == "" {
		t.Fatalf("response %+v", resp)
	}
	if u := resp.Usage; u.InputTokens == 0 || u.OutputTokens == 0 || u.TotalTokens != u.InputTokens+u.OutputTokens {
		t.Fatalf("usage %+v", u)
	}
	if got.Text != m.Content || got.Reasoning != m.Reasoning || !reflect.DeepEqual(got.ToolNames(), []string{"weather", "weather"}) ||
		got.ToolCalls[1].ToolIndex != 1 {
		t.Fatalf("streamed %+v", got)
	}
}

func TestClientReportsTheScriptedFinishUsageAndModel(t *testing.T) {
	usage := &llm.Usage{InputTokens: 100, OutputTokens: 7, CacheReadTokens: 80}
	c := llmtest.NewClient(t)
	c.Enqueue(
		llmtest.Reply{Text: "cut", FinishReason: llm.FinishLength, Usage: usage, Model: "served-model"},
		llmtest.Reply{Refusal: "I can't help with that."},
		llmtest.Reply{},
	)
	resp, _, _ := complete(t.Context(), c, hello())
	if resp.FinishReason != llm.FinishLength || resp.Model != "served-model" || resp.Usage.TotalTokens != 107 || resp.Usage.CacheReadTokens != 80 {
		t.Fatalf("response %+v", resp)
	}
	resp, _, _ = complete(t.Context(), c, hello())
	if resp.Refusal != "I can't help with that." || resp.Message.Content != "" || resp.FinishReason != llm.FinishContentFilter {
		t.Fatalf("refusal %+v", resp)
	}
	resp, got, err := complete(t.Context(), c, &llm.Request{})
	if err != nil || resp.Message.Content != "" || resp.FinishReason != llm.FinishStop || resp.Model != llmtest.DefaultModel || got.Text != "" {
		t.Fatalf("zero reply: %+v, %v", resp, err)
	}
}

func TestClientErrorRepliesAreClassifiedLikeTheProvidersBodies(t *testing.T) {
	tests := []struct {
		reply llmtest.Reply
		kind  llm.ErrorKind
		check func(*llm.ProviderError) bool
	}{
		{llmtest.Error(400, ""), llm.ErrContextOverflow, func(e *llm.ProviderError) bool { return e.ContextLimit == 128000 }},
		{llmtest.Error(400, llmtest.AnthropicContextOverflowBody), llm.ErrContextOverflow, func(e *llm.ProviderError) bool { return e.ContextLimit == 200000 }},
		{llmtest.Error(401, ""), llm.ErrAuth, nil},
		{llmtest.Error(402, llmtest.OpenRouterInsufficientCreditsBody), llm.ErrBilling, nil},
		{llmtest.Error(429, "").WithHeader("Retry-After", "7"), llm.ErrRateLimit, func(e *llm.ProviderError) bool { return e.RetryAfter == 7*time.Second }},
		{llmtest.Error(429, llmtest.OpenAIQuotaBody), llm.ErrBilling, nil},
		{llmtest.Error(500, ""), llm.ErrServer, func(e *llm.ProviderError) bool { return strings.Contains(e.Message, "The server had an error") }},
		{llmtest.Error(529, llmtest.AnthropicOverloadedBody), llm.ErrServer, func(e *llm.ProviderError) bool { return e.Message == "Overloaded" }},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%d %.30s", tt.reply.Status, tt.reply.Body), func(t *testing.T) {
			c := llmtest.NewClient(t)
			c.Enqueue(tt.reply)
			resp, got, err := complete(t.Context(), c, hello())
			pe, ok := llm.AsProviderError(err)
			if !ok || resp != nil || pe.Kind != tt.kind || pe.StatusCode != tt.reply.Status || (tt.check != nil && !tt.check(pe)) {
				t.Fatalf("got %+v, %#v; want a %s error", resp, err, tt.kind)
			}
			if got.Text != "" {
				t.Fatalf("an error reply streamed %q", got.Text)
			}
		})
	}
}

func TestClientBrokenRepliesFailAsATransportWould(t *testing.T) {
	tests := []struct {
		name     string
		reply    llmtest.Reply
		kind     llm.ErrorKind
		streamed string
	}{
		{"empty", llmtest.Reply{Empty: true}, llm.ErrInvalidResponse, ""},
		{"cut stream", llmtest.Reply{Text: "one two three four", CutAfter: 2}, llm.ErrConnection, "one two"},
		{"stream error", llmtest.Reply{Text: "one two three", CutAfter: 1, StreamError: llmtest.AnthropicOverloadedBody}, llm.ErrServer, "one"},
		{"stream error at once", llmtest.Reply{Text: "one two", StreamError: llmtest.OpenAIServerErrorBody}, llm.ErrServer, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := llmtest.NewClient(t)
			c.Enqueue(tt.reply)
			resp, got, err := complete(t.Context(), c, hello())
			if pe, ok := llm.AsProviderError(err); !ok || resp != nil || pe.Kind != tt.kind {
				t.Fatalf("got %+v, %v; want a %s error", resp, err, tt.kind)
			}
			if got.Text != tt.streamed {
				t.Fatalf("streamed %q before failing, want %q", got.Text, tt.streamed)
			}
		})
	}
}

func TestClientHangBlocksUntilTheContextEnds(t *testing.T) {
	for _, reply := range []llmtest.Reply{{Text: "never", Hang: true}, {Text: "partial answer that stalls", CutAfter: 2, Hang: true}} {
		c := llmtest.NewClient(t)
		c.Enqueue(reply)
		ctx, cancel := context.WithCancel(t.Context())
		var streamed []string
		done := make(chan error, 1)
		go func() {
			_, err := c.Complete(ctx, hello(), func(d llm.Delta) { streamed = append(streamed, d.Text) })
			done <- err
		}()
		if r := <-c.Hanging(); r.Messages[1].Content != "hello" {
			t.Fatalf("Hanging delivered %+v", r)
		}
		select {
		case err := <-done:
			t.Fatalf("returned %v while hanging", err)
		default:
		}
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
		if want := min(reply.CutAfter, 2); len(streamed) != want {
			t.Fatalf("streamed %q before hanging, want %d deltas", streamed, want)
		}
	}
}

func TestClientEndedContextTakesNothingFromTheScript(t *testing.T) {
	c := llmtest.NewClient(t)
	c.Enqueue(llmtest.Reply{Text: "for the next call"})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := c.Complete(ctx, hello(), nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	if c.Pending() != 1 || len(c.Requests()) != 0 {
		t.Fatalf("pending %d, requests %d", c.Pending(), len(c.Requests()))
	}
	if resp, err := c.Complete(t.Context(), hello(), nil); err != nil || resp.Message.Content != "for the next call" {
		t.Fatalf("%+v %v", resp, err)
	}
}

func TestClientScriptMixesRepliesFunctionsAndAHandler(t *testing.T) {
	boom := errors.New("boom")
	c := llmtest.NewClient(t)
	c.Enqueue(llmtest.Reply{Text: "first"})
	c.EnqueueFunc(func(ctx context.Context, req *llm.Request, sink func(llm.Delta)) (*llm.Response, error) {
		sink(llm.Delta{Kind: llm.DeltaText, Text: "half"})
		return nil, boom
	})
	c.Enqueue(llmtest.Reply{Text: "third"})
	c.Handle(func(req *llm.Request) llmtest.Reply {
		return llmtest.Reply{Text: "echo: " + req.Messages[len(req.Messages)-1].Content}
	})

	var texts []string
	for range 4 {
		resp, got, err := complete(t.Context(), c, hello())
		switch {
		case errors.Is(err, boom):
			texts = append(texts, "error after "+got.Text)
		case err != nil:
			t.Fatal(err)
		default:
			texts = append(texts, resp.Message.Content)
		}
	}
	if want := []string{"first", "error after half", "third", "echo: hello"}; !reflect.DeepEqual(texts, want) {
		t.Fatalf("answers %q, want %q", texts, want)
	}
	c.HandleFunc(func(context.Context, *llm.Request, func(llm.Delta)) (*llm.Response, error) { return nil, boom })
	if _, err := c.Complete(t.Context(), hello(), nil); !errors.Is(err, boom) {
		t.Fatalf("HandleFunc did not replace the handler: %v", err)
	}
	if c.Pending() != 0 || len(c.Requests()) != 5 || len(c.Unexpected()) != 0 {
		t.Fatalf("pending %d, %d requests, %d unexpected", c.Pending(), len(c.Requests()), len(c.Unexpected()))
	}
}

func TestClientRequestsAreCopiesThatNeverChange(t *testing.T) {
	c := llmtest.NewClient(t)
	c.Enqueue(llmtest.Reply{}, llmtest.Reply{})
	temp := 0.5
	req := &llm.Request{Model: "m", Temperature: &temp,
		Messages: []llm.Message{llm.User("hello"), {Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "1", Name: "ls"}}}},
		Tools:    []llm.ToolDef{{Name: "ls", Parameters: []byte(`{"type":"object"}`)}}}
	if _, err := c.Complete(t.Context(), req, nil); err != nil {
		t.Fatal(err)
	}
	req.Messages[0].Content = "changed"
	req.Messages[1].ToolCalls[0].Name = "changed"
	req.Tools[0].Parameters[0] = '['
	temp = 2

	first := c.Requests()[0]
	first.Messages[0].Content = "changed by the reader"
	got := c.Requests()[0]
	if got.Messages[0].Content != "hello" || got.Messages[1].ToolCalls[0].Name != "ls" || string(got.Tools[0].Parameters) != `{"type":"object"}` || *got.Temperature != 0.5 {
		t.Fatalf("recorded request changed: %+v", got)
	}
}

func TestClientRunningOutOfScriptFailsTheTestAtCleanup(t *testing.T) {
	tb := &fakeTB{TB: t}
	c := llmtest.NewClient(tb)
	c.Enqueue(llmtest.Reply{Text: "the only reply"})
	if _, err := c.Complete(t.Context(), hello(), nil); err != nil {
		t.Fatal(err)
	}
	_, err := c.Complete(t.Context(), &llm.Request{Model: "m2", Messages: []llm.Message{llm.User("one more")}}, nil)
	if pe, ok := llm.AsProviderError(err); !ok || !strings.Contains(pe.Message, "no scripted reply left for client call 1") {
		t.Fatalf("err = %v, want one saying the script ran out", err)
	}
	if un := c.Unexpected(); len(un) != 1 || un[0].Model != "m2" {
		t.Fatalf("Unexpected() = %+v", un)
	}
	tb.finish()
	if len(tb.errs) != 1 || !strings.Contains(tb.errs[0], "call 1") || !strings.Contains(tb.errs[0], `"one more"`) {
		t.Fatalf("cleanup reported %q, want one error naming call 1", tb.errs)
	}

	tb = &fakeTB{TB: t}
	c = llmtest.NewClient(tb)
	c.AllowUnexpected()
	_, _ = c.Complete(t.Context(), hello(), nil)
	tb.finish()
	if len(tb.errs) != 0 {
		t.Fatalf("cleanup reported %q despite AllowUnexpected", tb.errs)
	}
}

func TestZeroClientAnswersAndFailsNothing(t *testing.T) {
	var c llmtest.Client
	c.Enqueue(llmtest.Reply{Text: "ok"})
	if resp, err := c.Complete(t.Context(), hello(), nil); err != nil || resp.Message.Content != "ok" {
		t.Fatalf("%+v %v", resp, err)
	}
	if _, err := c.Complete(t.Context(), hello(), nil); err == nil || len(c.Unexpected()) != 1 {
		t.Fatalf("an empty script answered: %v", err)
	}
}

func TestClientConcurrentCallsEachTakeOneReply(t *testing.T) {
	c := llmtest.NewClient(t)
	const n = 16
	for i := range n {
		c.Enqueue(llmtest.Reply{Text: fmt.Sprintf("reply-%d", i)})
	}
	var mu sync.Mutex
	seen := map[string]int{}
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			resp, err := c.Complete(context.Background(), hello(), nil)
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			seen[resp.Message.Content]++
			mu.Unlock()
			c.Requests()
		})
	}
	wg.Wait()
	for i := range n {
		if seen[fmt.Sprintf("reply-%d", i)] != 1 {
			t.Fatalf("replies not delivered once each: %v", seen)
		}
	}
}
