package agent

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/tool"
)

func roles(msgs []llm.Message) string {
	s := ""
	for _, m := range msgs {
		s += string(m.Role)[:1]
	}
	return s
}

func TestAnInterruptedPromptIsClosedSoTheNextTurnNeedsNoRepair(t *testing.T) {
	hung := make(chan struct{})
	s := script(t).add(func(ctx context.Context, req *llm.Request, sink func(llm.Delta)) (*llm.Response, error) {
		close(hung)
		<-ctx.Done()
		return nil, ctx.Err()
	}, text("the second answer"))
	rec := &recorder{}
	st := newMemStore()
	a := New(Config{Client: s, Model: "m", Observer: rec.observe, Store: st, Session: SessionMeta{ID: "s1"}})
	go func() { <-hung; a.Interrupt() }()
	first, err := a.Run(context.Background(), Input{Message: "the first question"})
	if err != nil || !first.Interrupted {
		t.Fatalf("first turn %+v %v", first, err)
	}
	second, err := a.Run(context.Background(), Input{Message: "the second question"})
	if err != nil || !second.Completed {
		t.Fatalf("second turn %+v %v", second, err)
	}
	if ev := rec.of(EventRepair); len(ev) != 0 {
		t.Fatalf("the call after an interrupt needed repairs: %+v", ev)
	}
	sent := s.requests()[1].Messages
	if roles(sent) != "uau" || sent[0].Content != "the first question" || sent[1].Content != InterruptedNote || sent[2].Content != "the second question" {
		t.Fatalf("second call sent %+v", sent)
	}
	// The store holds the same closed history: a resume needs no repair either.
	stored := st.msgs["s1"]
	if roles(stored) != "uaua" || stored[1].FinishReason != llm.FinishInterrupted {
		t.Fatalf("stored %+v", stored)
	}
}

// A process that died mid-turn leaves the stored history open: a prompt
// without an answer, or tool calls without results. The resumed agent
// closes it, in the store too, before the next prompt.
func TestAResumedHistoryLeftOpenIsClosedBeforeTheNextPrompt(t *testing.T) {
	tests := map[string]struct {
		history []llm.Message
		want    string // roles sent, then stored additions
	}{
		"prompt without an answer": {[]llm.Message{llm.User("lost question")}, "uau"},
		"calls without results": {[]llm.Message{
			llm.User("run two things"),
			{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{call("c1", "echo", `{}`), call("c2", "echo", `{}`)}},
			llm.ToolResult("c1", "echo", "one done"),
		}, "uattu"},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			s := script(t).add(text("fine"))
			rec := &recorder{}
			st := newMemStore()
			a := New(Config{Client: s, Model: "m", Tools: tool.NewRegistry(echoTool()), Observer: rec.observe, Store: st, Session: SessionMeta{ID: "s1"}})
			a.SetHistory(tt.history, "")
			if _, err := a.Run(context.Background(), Input{Message: "next"}); err != nil {
				t.Fatal(err)
			}
			if ev := rec.of(EventRepair); len(ev) != 0 {
				t.Fatalf("repairs: %+v", ev)
			}
			sent := s.requests()[0].Messages
			if roles(sent) != tt.want {
				t.Fatalf("sent roles %s, want %s: %+v", roles(sent), tt.want, sent)
			}
			added := len(sent) - len(tt.history) - 1 // the closing messages, before "next"
			stored := st.msgs["s1"]
			if len(stored) < added+1 {
				t.Fatalf("stored %+v", stored)
			}
			for i, m := range stored[:added] {
				if m.Content != InterruptedNote && m.Content != InterruptedToolNote {
					t.Fatalf("stored closing message %d = %+v", i, m)
				}
			}
			if got := fmt.Sprint(stored[added].Content); got != "next" {
				t.Fatalf("stored after the closing messages: %q", got)
			}
		})
	}
}

func TestAnUnknownFinishReasonIsAnErrorThatNamesIt(t *testing.T) {
	s := script(t).add(reply(&llm.Response{Message: llm.Assistant(""), FinishReason: "function_call"}))
	res, err := New(Config{Client: s, Model: "m"}).Run(context.Background(), Input{Message: "hi"})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Failed || res.ExitReason != ExitInvalidResponse || res.Error == nil || !strings.Contains(res.Error.Error(), `"function_call"`) {
		t.Fatalf("result %+v", res)
	}
	if len(res.Messages) != 1 {
		t.Fatalf("the reply entered the history: %+v", res.Messages)
	}
}

func TestAFailedTurnStoresNothingAndTheNextPromptClosesItAsFailed(t *testing.T) {
	s := script(t).add(fail(&llm.ProviderError{Kind: llm.ErrServer, Message: "boom"}), text("second"))
	rec := &recorder{}
	st := newMemStore()
	a := New(Config{Client: s, Model: "m", Observer: rec.observe, Store: st, Session: SessionMeta{ID: "s1"}})
	res, _ := a.Run(context.Background(), Input{Message: "first"})
	if !res.Failed || len(res.Messages) != 1 || len(st.msgs["s1"]) != 1 {
		t.Fatalf("a failed turn left %+v (stored %+v)", res.Messages, st.msgs["s1"])
	}
	if _, err := a.Run(context.Background(), Input{Message: "again"}); err != nil {
		t.Fatal(err)
	}
	if ev := rec.of(EventRepair); len(ev) != 0 {
		t.Fatalf("repairs after a failed turn: %+v", ev)
	}
	sent := s.requests()[1].Messages
	if roles(sent) != "uau" || sent[1].FinishReason != llm.FinishFailed ||
		!strings.HasPrefix(sent[1].Content, FailedNote) || !strings.Contains(sent[1].Content, string(ExitProviderError)) {
		t.Fatalf("the call after a failure sent %+v", sent)
	}
}

func TestSecretsInTheConversationDoNotLeaveForTheProvider(t *testing.T) {
	s := script(t).add(text("ok"))
	mask := func(x string) string { return strings.ReplaceAll(x, "sk-live-secret", "[REDACTED]") }
	a := New(Config{Client: s, Model: "m", Redact: mask,
		SystemPrompt: func(context.Context, string, string) (string, error) { return "notes: sk-live-secret", nil }})
	if _, err := a.Run(context.Background(), Input{Message: "use sk-live-secret please"}); err != nil {
		t.Fatal(err)
	}
	for _, m := range s.requests()[0].Messages {
		if strings.Contains(m.Content, "sk-live-secret") {
			t.Fatalf("%s message sent with the secret: %q", m.Role, m.Content)
		}
	}
	if got := a.History()[0].Content; got != "use sk-live-secret please" {
		t.Fatalf("the history itself was rewritten: %q", got)
	}
}
