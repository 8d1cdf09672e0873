package app_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/agent"
	"github.com/hermes-go/hermes/app"
	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
	"github.com/hermes-go/hermes/tool"
)

// A chat in steer mode: a message sent while a tool runs reaches the
// model with that tool's result and is stored with it; one sent during the
// last model call comes back in the Result and runs as the next turn.
func TestAConversationIsSteeredWhileItsTurnRuns(t *testing.T) {
	srv := llmtest.NewServer(t)
	var c *app.Conversation
	slow := tool.Func{S: tool.Spec{Name: "slow_build", Toolset: "mine"}, Fn: func(ctx context.Context, call tool.Call) (tool.Result, error) {
		if !c.Steer("only the server target") {
			t.Error("Steer while a tool runs returned false")
		}
		return tool.Text("build finished"), nil
	}}
	srv.Enqueue(llmtest.Reply{ToolCalls: []llm.ToolCall{{ID: "c1", Name: "slow_build", Arguments: `{}`}}})
	srv.Handle(func(r *llmtest.Request) llmtest.Reply {
		if r.Index == 1 {
			c.Steer("and tell me how long it took")
			return llmtest.Reply{Text: "The server target is built."}
		}
		return llmtest.Reply{Text: "It took a minute."}
	})
	rt := newRuntime(t, newConfig(t, srv.URL()), app.Options{Tools: []tool.Tool{slow}})
	c = open(t, rt, app.ConversationOptions{})
	if c.Steer("nobody is working") {
		t.Fatal("Steer with no turn running returned true")
	}
	ctx := context.Background()
	res, err := c.Run(ctx, agent.Input{Message: "build"})
	if err != nil || !res.Completed {
		t.Fatalf("res %+v err %v", res, err)
	}
	const steered = "build finished\n\n[The user added while you worked: only the server target]"
	if got := srv.Requests()[1].LastToolResult(); got != steered {
		t.Fatalf("second request's tool result = %q\n%+v", got, res.Messages)
	}
	msgs, err := rt.Store().Messages(ctx, res.SessionID)
	if err != nil || len(msgs) != 4 || msgs[2].Content != steered {
		t.Fatalf("stored %+v err %v", msgs, err)
	}
	if !slices.Equal(res.PendingSteer, []string{"and tell me how long it took"}) {
		t.Fatalf("PendingSteer = %q", res.PendingSteer)
	}

	res, err = c.Run(ctx, agent.Input{Message: strings.Join(res.PendingSteer, "\n")})
	if err != nil || !res.Completed || len(res.PendingSteer) != 0 {
		t.Fatalf("next turn: res %+v err %v", res, err)
	}
	sent := srv.Requests()[2].Messages()
	if last := sent[len(sent)-1]; last.Role != llm.RoleUser || last.Content != "and tell me how long it took" {
		t.Fatalf("the next turn sent %+v", last)
	}
}
