package tui

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
)

// gatedServer answers "answer to ..." but holds the first request of a
// message holding "hold" until release is closed, then calls a tool when
// the message asks for one.
func gatedServer(t *testing.T) (srv *llmtest.Server, held <-chan struct{}, release func()) {
	srv = llmtest.NewServer(t)
	srv.AllowUnexpected()
	heldCh, gate := make(chan struct{}, 1), make(chan struct{})
	var once sync.Once
	release = func() { once.Do(func() { close(gate) }) }
	t.Cleanup(release) // before the server's Close, which waits for the request
	srv.Handle(func(r *llmtest.Request) llmtest.Reply {
		last := r.Messages()[len(r.Messages())-1]
		switch {
		case strings.Contains(last.Content, "Write the title for this conversation"):
			return llmtest.Reply{Text: "Untitled"}
		case last.Role == llm.RoleTool:
			return llmtest.Reply{Text: "tool said: " + last.Content}
		case strings.HasPrefix(last.Content, "hold") && !strings.Contains(last.Content, "side question"):
			heldCh <- struct{}{}
			<-gate
			if strings.Contains(last.Content, "use a tool") {
				return llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "terminal", Arguments: `{"command":"echo from-the-tool"}`}}}
			}
			return llmtest.Reply{Text: "held answer"}
		}
		return llmtest.Reply{Text: "answer to " + last.Content}
	})
	return srv, heldCh, release
}

// /steer typed while the turn waits on the model reaches the request after
// the tool call; /queue waits for the turn, shown under the conversation.
func TestSteerAndQueueWhileATurnRuns(t *testing.T) {
	srv, held, release := gatedServer(t)
	h := newHarness(t, srv, setup{})
	h.say("hold on and use a tool")
	receive(h, "the held request", held)
	h.say("/steer mention the weather")
	h.until("the steer acknowledged", func() bool { return strings.Contains(h.conversation(), "Steering:") })
	h.say("/queue and then this")
	h.until("the queue shown", func() bool { return strings.Contains(h.screen(), "queued (1): and then this") })
	if n := requestsN(srv); n != 0 { // the held request is recorded once answered
		t.Fatalf("%d requests answered before the held one", n)
	}
	release()
	h.until("the queued message's answer", func() bool { return strings.Contains(h.conversation(), "answer to and then this") })
	h.idle()
	reqs := chatRequests(srv)
	if len(reqs) != 3 {
		t.Fatalf("%d requests", len(reqs))
	}
	if got := reqs[1].LastToolResult(); !strings.Contains(got, "from-the-tool") || !strings.Contains(got, "mention the weather") {
		t.Fatalf("the request after the tool call carries %q", got)
	}
	if got := lastUser(reqs[2]); got != "and then this" {
		t.Fatalf("the queued message went as %q", got)
	}
}

// A steer the turn ends before reading is sent as the next message.
func TestSteerNotReadIsTheNextMessage(t *testing.T) {
	srv, held, release := gatedServer(t)
	h := newHarness(t, srv, setup{})
	h.say("hold on, no tools")
	receive(h, "the held request", held)
	h.say("/steer keep it short")
	h.until("the steer acknowledged", func() bool { return strings.Contains(h.conversation(), "Steering:") })
	release()
	h.until("the steer's answer", func() bool { return strings.Contains(h.conversation(), "answer to keep it short") })
	h.idle()
	if !strings.Contains(h.conversation(), "sent as your next message") {
		t.Fatalf("the UI did not say where the steer went:\n%s", h.conversation())
	}
}

// /resume without an argument opens the picker: typing filters, Enter
// resumes the one chosen, Esc leaves everything as it was.
func TestPickerResumesTheSessionChosen(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.AllowUnexpected()
	srv.Handle(func(r *llmtest.Request) llmtest.Reply { return llmtest.Reply{Text: "answer to " + lastUser(r)} })
	h := newHarness(t, srv, setup{})
	h.say("about apples")
	h.idle()
	h.say("/title apples")
	h.idle()
	apples := h.conv().SessionID()
	h.say("/new")
	h.idle()
	h.say("about pears")
	h.idle()
	h.say("/title pears")
	h.idle()
	h.say("/new")
	h.idle()
	current := h.conv().SessionID()

	h.say("/resume")
	h.until("the picker", func() bool { return strings.Contains(h.screen(), "Resume a session") })
	if s := h.screen(); !strings.Contains(s, "apples") || !strings.Contains(s, "pears") || !strings.Contains(s, "2 msgs") || !strings.Contains(s, "(2 of 2)") {
		t.Fatalf("the picker:\n%s", s)
	}
	h.press(esc)
	h.until("the picker closed", func() bool { return !strings.Contains(h.screen(), "Resume a session") })
	h.idle()
	if h.conv().SessionID() != current {
		t.Fatal("Esc moved the chat")
	}

	h.say("/sessions")
	h.until("the picker", func() bool { return strings.Contains(h.screen(), "Resume a session") })
	h.typeText("appl")
	h.until("the filter", func() bool { return strings.Contains(h.screen(), "(1 of 2)") })
	if s := h.m.pickerView(100); strings.Contains(s, "pears") || !strings.Contains(s, "apples") {
		t.Fatalf("the filter kept pears:\n%s", s)
	}
	h.press(enter)
	h.until("the resumed session", func() bool { return strings.Contains(h.conversation(), "resumed session "+apples) })
	h.idle()
	if h.conv().SessionID() != apples {
		t.Fatalf("on %s, not %s", h.conv().SessionID(), apples)
	}
	// Arrow keys move the choice.
	h.say("/resume")
	h.until("the picker", func() bool { return strings.Contains(h.screen(), "Resume a session") })
	h.press(down)
	h.press(enter)
	h.until("another session", func() bool { return h.conv().SessionID() != apples })
	h.idle()
}

// A steer the user stopped the turn before it was read is not sent on its
// own: it waits in the input.
func TestSteerOfAStoppedTurnWaitsInTheInput(t *testing.T) {
	srv, held, _ := gatedServer(t)
	h := newHarness(t, srv, setup{})
	h.say("hold on, no tools")
	receive(h, "the held request", held)
	h.say("/steer keep it short")
	h.until("the steer acknowledged", func() bool { return strings.Contains(h.conversation(), "Steering:") })
	h.press(ctrlC)
	h.until("the turn stopped", func() bool { return strings.Contains(h.conversation(), "back in the input") })
	h.idle()
	if got := h.m.input.Value(); got != "keep it short" {
		t.Fatalf("the input holds %q", got)
	}
	if n := requestsN(srv); n != 0 {
		t.Fatalf("%d requests answered after the stop", n)
	}
}

// /btw answers while a turn runs, from the conversation so far, and
// neither the question nor the answer reaches the session.
func TestBtwWhileATurnRuns(t *testing.T) {
	srv, held, release := gatedServer(t)
	h := newHarness(t, srv, setup{})
	h.say("hold on, no tools")
	receive(h, "the held request", held)
	h.say("/btw what are you doing")
	h.until("the side answer", func() bool { return strings.Contains(h.conversation(), "not kept in the session") })
	// The turn's message has no answer yet: the question joins it.
	side := chatRequests(srv)[0].Messages()
	if got := side[len(side)-1].Content; !strings.HasPrefix(got, "hold on, no tools") || !strings.Contains(got, "what are you doing") {
		t.Fatalf("the side call's last message: %q", got)
	}
	release()
	h.until("the turn's answer", func() bool { return strings.Contains(h.conversation(), "held answer") })
	h.idle()
	msgs, err := h.rt.Store().Messages(context.Background(), h.conv().SessionID())
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range msgs {
		if strings.Contains(m.Content, "what are you doing") || strings.Contains(m.Content, "side question") {
			t.Fatalf("the session stored the side question: %+v", msgs)
		}
	}
	if len(msgs) != 2 {
		t.Fatalf("the session holds %d messages", len(msgs))
	}
}
