package session

import (
	"context"
	"testing"

	"github.com/hermes-go/hermes/llm"
)

func TestDropLastTurnDeletesTheLastExchangeOnly(t *testing.T) {
	st, _ := openTest(t)
	ctx := context.Background()
	s, err := st.CreateSession(ctx, Session{})
	if err != nil {
		t.Fatal(err)
	}
	st.AppendMessages(ctx, s.ID, llm.User("first question"), llm.Assistant("first answer"),
		llm.User("second zebra question"), llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "c1", Name: "t", Arguments: "{}"}}},
		llm.Message{Role: llm.RoleTool, ToolCallID: "c1", Content: "zebra result"}, llm.Assistant("second answer"))
	n, err := st.DropLastTurn(ctx, s.ID)
	if err != nil || n != 4 {
		t.Fatalf("dropped %d err %v", n, err)
	}
	msgs, _ := st.Messages(ctx, s.ID)
	got, _ := st.Get(ctx, s.ID)
	if len(msgs) != 2 || msgs[1].Content != "first answer" || got.MessageCount != 2 || got.Preview != "first question" {
		t.Fatalf("messages %+v session %+v", msgs, got)
	}
	if hits, err := st.Search(ctx, "zebra", SearchOptions{}); err != nil || len(hits) != 0 {
		t.Fatalf("dropped messages still found: %+v %v", hits, err)
	}
	// New messages follow on.
	st.AppendMessage(ctx, s.ID, llm.User("third"))
	if n, _ := st.DropLastTurn(ctx, s.ID); n != 1 {
		t.Fatalf("dropped %d", n)
	}
	st.DropLastTurn(ctx, s.ID)
	got, _ = st.Get(ctx, s.ID)
	if got.MessageCount != 0 || got.Preview != "" {
		t.Fatalf("after dropping everything: %+v", got)
	}
	if n, err := st.DropLastTurn(ctx, s.ID); n != 0 || err != nil {
		t.Fatalf("nothing left: %d %v", n, err)
	}
}
