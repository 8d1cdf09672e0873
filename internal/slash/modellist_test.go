package slash

import (
	"context"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/llm/llmtest"
)

// /model without a name shows the models the provider offers, numbered,
// the current one marked; /model N picks the Nth for the next turn.
func TestModelListsWhatTheProviderOffersAndANumberPicks(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.SetModels("first-model", "model-b", "model-c")
	srv.Handle(func(*llmtest.Request) llmtest.Reply { return llmtest.Reply{Text: "ok"} })
	r, h := chat(t, srv, "")
	if err := run(t, r, h, "/model"); err != nil {
		t.Fatal(err)
	}
	out := h.out()
	if !strings.Contains(out, "*  1) custom:first-model\n   2) custom:model-b\n   3) custom:model-c\n") {
		t.Fatalf("/model:\n%s", out)
	}
	if err := run(t, r, h, "/model 3"); err != nil {
		t.Fatal(err)
	}
	h.Conversation().Chat(context.Background(), "hi")
	if got := srv.Requests()[0].Model; got != "model-c" {
		t.Fatalf("the turn went to %q", got)
	}
	if err := run(t, r, h, "/model 9"); err == nil || !strings.Contains(err.Error(), "3 models are offered") {
		t.Fatalf("/model 9: %v", err)
	}
}
