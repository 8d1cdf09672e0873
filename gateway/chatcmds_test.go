package gateway_test

import (
	"strings"
	"testing"

	"github.com/hermes-go/hermes/gateway"
	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
)

// /steer joins the running turn whatever the busy mode (here interrupt,
// the default): the text reaches the model call after the tool call, and
// the turn is not stopped. /bg says it is not available in a chat.
func TestSteerCommandJoinsTheRunningTurn(t *testing.T) {
	f := newFixture(t, func(o *gateway.Options) { o.Streaming = false })
	f.script(llmtest.Reply{Text: "HOLD:", ToolCalls: []llm.ToolCall{{Name: "terminal", Arguments: `{"command":"echo hi"}`}}}, llmtest.Reply{Text: "done, in French"})
	f.a.dm(t, "alice", "say hi")
	<-f.held
	f.a.dm(t, "alice", "/steer answer in French")
	eventually(t, "the steer acknowledged", func() bool { return strings.Contains(lastText(f.a.messages("dm-alice")), "Steering") })
	f.release <- struct{}{}
	eventually(t, "the answer", func() bool { return lastText(f.a.messages("dm-alice")) == "done, in French" })
	reqs := f.modelRequests()
	if len(reqs) != 2 || !strings.Contains(string(reqs[1].Body), "answer in French") {
		t.Fatalf("%d model requests; the steered text did not ride on the second", len(reqs))
	}
	f.a.dm(t, "root", "/bg look around") // an admin: /bg is not in the safe set
	eventually(t, "the refusal", func() bool { return strings.Contains(lastText(f.a.messages("dm-root")), "not available here") })
}
