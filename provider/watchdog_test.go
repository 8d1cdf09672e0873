package provider

import (
	"context"
	"testing"
	"time"

	"github.com/hermes-go/hermes/llm"
)

// A stream that goes silent is abandoned as stalled and retried; a local
// endpoint is never watched.
func TestStalledStreamIsAbandonedAndRetried(t *testing.T) {
	calls := 0
	hang := llm.ClientFunc(func(ctx context.Context, req *llm.Request, sink func(llm.Delta)) (*llm.Response, error) {
		calls++
		if calls == 1 {
			sink(llm.Delta{Kind: llm.DeltaText, Text: "a"})
			<-ctx.Done() // silent after one delta
			return nil, ctx.Err()
		}
		return &llm.Response{Message: llm.Assistant("ok")}, nil
	})
	var events []RetryEvent
	c, err := NewChain([]Endpoint{{Provider: "openai", Model: "m", BaseURL: "https://api.openai.com/v1"}}, ChainOptions{
		Factory:      func(llm.APIMode, llm.Options) (llm.Client, error) { return hang, nil },
		StaleTimeout: 20 * time.Millisecond,
		Sleep:        func(context.Context, time.Duration) error { return nil },
		OnRetry:      func(e RetryEvent) { events = append(events, e) },
	})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.Complete(context.Background(), &llm.Request{Model: "m"}, func(llm.Delta) {})
	if err != nil || resp.Message.Content != "ok" || calls != 2 {
		t.Fatalf("resp %v err %v calls %d", resp, err, calls)
	}
	if len(events) != 1 || events[0].Err.Kind != llm.ErrStalled || !events[0].Streamed {
		t.Fatalf("events %+v", events)
	}
}

func TestLocalEndpointsAreNotWatched(t *testing.T) {
	for _, ep := range []Endpoint{
		{Provider: "ollama", BaseURL: "http://example.internal:11434/v1"},
		{Provider: "custom", BaseURL: "http://127.0.0.1:8080/v1"},
		{Provider: "custom", BaseURL: "http://localhost:1234/v1"},
	} {
		if !isLocal(ep) {
			t.Errorf("%+v is not local", ep)
		}
	}
	if isLocal(Endpoint{Provider: "openai", BaseURL: "https://api.openai.com/v1"}) {
		t.Error("api.openai.com is local")
	}
}
