package transport_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
	"github.com/hermes-go/hermes/provider"
)

// A reply that stops before its terminator is a failed attempt in every
// wire format, retried like a dropped connection and then reported; its
// partial text is never the answer.
func TestEndToEndStreamWithoutTerminatorIsRetriedThenFails(t *testing.T) {
	for _, mode := range []llm.APIMode{llm.ChatCompletions, llm.CodexResponses, llm.AnthropicMessages} {
		t.Run(string(mode), func(t *testing.T) {
			srv := llmtest.NewServer(t)
			for range provider.DefaultMaxRetries + 1 {
				srv.Enqueue(llmtest.Reply{Text: "The final answer is 42.", EndAfter: 3})
			}
			ep := provider.Endpoint{Provider: "custom", Model: "m", BaseURL: srv.URL(), APIKey: "sk-test", APIMode: mode}
			if mode == llm.AnthropicMessages {
				ep = anthropicEndpoint(srv, "claude-sonnet-4-5")
			}
			rec := &recorder{}
			c := newChain(t, rec.options(), ep)
			resp, err := c.Complete(context.Background(), userRequest(), func(llm.Delta) {})
			pe, ok := llm.AsProviderError(err)
			if resp != nil || !ok || pe.Kind != llm.ErrConnection {
				t.Fatalf("got %v, %v; want no response and a connection error", resp, err)
			}
			if !strings.Contains(err.Error(), "failed after 3 retries") {
				t.Errorf("error %q does not say the retries were spent", err)
			}
			if got := len(srv.Requests()); got != 4 {
				t.Fatalf("%d attempts, want 4", got)
			}
			want := []time.Duration{2 * time.Second, 4 * time.Second, 8 * time.Second}
			if fmt.Sprint(rec.waits) != fmt.Sprint(want) {
				t.Fatalf("waits %v, want %v", rec.waits, want)
			}
		})
	}
}

func TestEndToEndCutChatStreamIsRetriedFromTheStart(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Reply{Text: "The final answer is 42.", EndAfter: 3}, llmtest.Reply{Text: "The final answer is 42."})
	rec := &recorder{}
	c := newChain(t, rec.options(), chatEndpoint(srv, "openai", "gpt-4o"))
	var shown strings.Builder
	resp, err := c.Complete(context.Background(), userRequest(), func(d llm.Delta) {
		switch {
		case d.Kind == llm.DeltaText:
			shown.WriteString(d.Text)
		case d.Kind == llm.DeltaRetry && d.Restart:
			shown.Reset() // what a surface does with a restart
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Message.Content != "The final answer is 42." || shown.String() != "The final answer is 42." {
		t.Fatalf("answer %q, shown %q", resp.Message.Content, shown.String())
	}
	if len(rec.retries) != 1 || !rec.retries[0].Streamed || rec.retries[0].Err.Kind != llm.ErrConnection {
		t.Fatalf("retries %+v, want one connection retry after streamed text", rec.retries)
	}
}

// An unknown finish reason is an invalid response, which moves to the
// fallback at once rather than passing for an answer.
func TestEndToEndUnknownFinishReasonFallsBack(t *testing.T) {
	primary := llmtest.NewServer(t)
	primary.Enqueue(llmtest.Reply{Text: "The final", FinishReason: "insufficient_system_resource"})
	backup := llmtest.NewServer(t)
	backup.Enqueue(llmtest.Reply{Text: "A whole answer."})
	rec := &recorder{}
	c := newChain(t, rec.options(), chatEndpoint(primary, "deepseek", "deepseek-chat"), chatEndpoint(backup, "openai", "gpt-4o"))
	resp, err := c.Complete(context.Background(), userRequest(), nil)
	if err != nil || resp.Message.Content != "A whole answer." {
		t.Fatalf("resp %v err %v", resp, err)
	}
	var pe *llm.ProviderError
	if len(rec.fallbacks) != 1 || !errors.As(rec.fallbacks[0].Err, &pe) || pe.Kind != llm.ErrInvalidResponse ||
		!strings.Contains(pe.Message, "insufficient_system_resource") {
		t.Fatalf("fallbacks %+v", rec.fallbacks)
	}
}
