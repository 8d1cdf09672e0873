package apiserver_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/hermes-go/hermes/gateway/apiserver"
	"github.com/hermes-go/hermes/llm/llmtest"
)

// Over max_concurrent_runs a request gets 429 with Retry-After; a client
// that disconnects interrupts its run and frees its slot.
func TestRunsAreBoundedAndADisconnectFreesTheSlot(t *testing.T) {
	f := newFixture(t, apiserver.Options{MaxConcurrentRuns: 1})
	f.llm.Enqueue(llmtest.Reply{Hang: true}, llmtest.Reply{Text: "second"})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		f.doCtx(t, ctx, http.MethodPost, "/v1/chat/completions", chatBody(false, "hang"))
	}()
	<-f.llm.Hanging()
	resp, body := f.do(t, http.MethodPost, "/v1/chat/completions", chatBody(false, "too many"))
	if typ, code, _ := errorOf(t, body); resp.StatusCode != 429 || resp.Header.Get("Retry-After") == "" || code != "rate_limit_exceeded" || typ == "" {
		t.Fatalf("over the limit: %d %v %s", resp.StatusCode, resp.Header, body)
	}
	cancel()
	<-done
	// Without the interrupt the hung call would hold the only slot.
	resp, body = f.do(t, http.MethodPost, "/v1/chat/completions", chatBody(false, "after"))
	for i := 0; resp.StatusCode == 429 && i < 1000; i++ { // the interrupted turn may still be closing
		resp, body = f.do(t, http.MethodPost, "/v1/chat/completions", chatBody(false, "after"))
	}
	if resp.StatusCode != 200 {
		t.Fatalf("after the disconnect: %d %s", resp.StatusCode, body)
	}
}

// One conversation runs one turn at a time: a second request on it while
// the first runs gets 409.
func TestABusyConversationIsAConflict(t *testing.T) {
	f := newFixture(t, apiserver.Options{})
	f.llm.Enqueue(llmtest.Reply{Text: "first"}, llmtest.Reply{Hang: true})
	resp, _ := f.do(t, http.MethodPost, "/v1/chat/completions", chatBody(false, "start"))
	id := resp.Header.Get("X-Hermes-Session-Id")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		f.doCtx(t, ctx, http.MethodPost, "/v1/chat/completions", chatBody(false, "slow"), "X-Hermes-Session-Id", id)
	}()
	<-f.llm.Hanging()
	resp, body := f.do(t, http.MethodPost, "/v1/chat/completions", chatBody(false, "meanwhile"), "X-Hermes-Session-Id", id)
	if _, code, _ := errorOf(t, body); resp.StatusCode != 409 || code != "conversation_busy" {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	cancel()
	<-done
}
