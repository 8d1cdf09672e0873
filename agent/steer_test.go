package agent

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/anthropic"
	"github.com/hermes-go/hermes/llm/llmtest"
	"github.com/hermes-go/hermes/llm/openai"
	"github.com/hermes-go/hermes/session"
	"github.com/hermes-go/hermes/tool"
)

// steeringTool steers the agent *a twice while it runs, as a user typing
// during a long command would.
func steeringTool(a **Agent, accepted *[]bool) tool.Tool {
	return tool.Func{S: tool.Spec{Name: "build", Class: tool.Parallel},
		Fn: func(ctx context.Context, c tool.Call) (tool.Result, error) {
			*accepted = append(*accepted, (*a).Steer("use the release profile"), (*a).Steer("  and skip the docs  "))
			return tool.Text("built"), nil
		}}
}

// A steer reaches the next model call inside the newest tool result, on
// every wire format (the fake provider refuses a request whose tool
// results do not answer its tool calls), and the stored result holds what
// was sent.
func TestSteeredTextRidesOnTheToolResultOfTheNextCall(t *testing.T) {
	srv := llmtest.NewServer(t)
	clients := map[string]llm.Client{
		"chat":      openai.NewChat(llm.Options{BaseURL: srv.URL(), APIKey: "k"}),
		"responses": openai.NewResponses(llm.Options{BaseURL: srv.URL(), APIKey: "k"}),
		"anthropic": anthropic.New(llm.Options{BaseURL: srv.AnthropicURL(), APIKey: "k"}),
	}
	want := "built\n\n[The user added while you worked: use the release profile]\n\n[The user added while you worked: and skip the docs]"
	for name, client := range clients {
		t.Run(name, func(t *testing.T) {
			st, err := session.Open(filepath.Join(t.TempDir(), "state.db"))
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			first := len(srv.Requests())
			srv.Enqueue(llmtest.Reply{ToolCalls: []llm.ToolCall{{ID: "c1", Name: "build", Arguments: `{}`}}}, llmtest.Reply{Text: "Built with the release profile."})
			var a *Agent
			var accepted []bool
			rec := &recorder{}
			a = New(Config{Client: client, Model: "m", Tools: tool.NewRegistry(steeringTool(&a, &accepted)), Observer: rec.observe,
				Store: st, Session: SessionMeta{ID: "s-" + name}})
			res, err := a.Run(context.Background(), Input{Message: "build it"})
			if err != nil || !res.Completed {
				t.Fatalf("res %+v err %v", res, err)
			}
			if !slices.Equal(accepted, []bool{true, true}) {
				t.Fatalf("Steer during the turn returned %v", accepted)
			}
			reqs := srv.Requests()[first:]
			if len(reqs) != 2 || reqs[1].Status != 200 {
				t.Fatalf("%d requests; the second answered %d %s", len(reqs), reqs[1].Status, reqs[1].Problem)
			}
			if got := reqs[1].LastToolResult(); got != want {
				t.Fatalf("second request's tool result = %q, want %q", got, want)
			}
			if !strings.Contains(string(reqs[1].Body), "and skip the docs") {
				t.Fatalf("the raw body lacks the steered text: %s", reqs[1].Body)
			}
			msgs, err := st.Messages(context.Background(), "s-"+name)
			if err != nil || len(msgs) != 4 || msgs[2].Role != llm.RoleTool || msgs[2].Content != want {
				t.Fatalf("stored messages %+v err %v", msgs, err)
			}
			var delivered []string
			for _, e := range rec.of(EventSteer) {
				delivered = append(delivered, e.Text)
			}
			if !slices.Equal(delivered, []string{"use the release profile", "and skip the docs"}) {
				t.Fatalf("steer events %q", delivered)
			}
			if len(res.PendingSteer) != 0 {
				t.Fatalf("delivered steers handed back: %q", res.PendingSteer)
			}
		})
	}
}

// A steer made while the model is thinking is delivered with the results
// of the tools it asks for.
func TestSteerDuringAModelCallWaitsForItsToolResults(t *testing.T) {
	s := script(t)
	var a *Agent
	s.add(func(ctx context.Context, req *llm.Request, sink func(llm.Delta)) (*llm.Response, error) {
		if !a.Steer("look in /srv too") {
			t.Error("Steer during the model call returned false")
		}
		return calls(call("c1", "echo", `{"text":"ls"}`))(ctx, req, sink)
	})
	s.add(text("found it"))
	a = New(Config{Client: s, Model: "m", Tools: tool.NewRegistry(echoTool())})
	res, err := a.Run(context.Background(), Input{Message: "find the config"})
	if err != nil || !res.Completed || len(res.PendingSteer) != 0 {
		t.Fatalf("res %+v err %v", res, err)
	}
	sent := s.requests()[1].Messages
	if got := sent[len(sent)-1]; got.Role != llm.RoleTool || got.Content != "echo: ls\n\n[The user added while you worked: look in /srv too]" {
		t.Fatalf("last message of the second call: %+v", got)
	}
	if strings.Contains(s.requests()[0].Messages[len(s.requests()[0].Messages)-1].Content, "/srv") {
		t.Fatal("the steer reached the call it was made during")
	}
}

func TestSteerWithoutARunningTurnIsRefused(t *testing.T) {
	s := script(t).add(text("hello"))
	a := New(Config{Client: s, Model: "m"})
	if a.Steer("anyone there?") {
		t.Fatal("Steer before any turn returned true")
	}
	res, err := a.Run(context.Background(), Input{Message: "hi"})
	if err != nil || len(res.PendingSteer) != 0 {
		t.Fatalf("res %+v err %v", res, err)
	}
	if a.Steer("still there?") {
		t.Fatal("Steer after the turn returned true")
	}
	if strings.Contains(s.requests()[0].Messages[len(s.requests()[0].Messages)-1].Content, "there?") {
		t.Fatal("a refused steer reached the model")
	}
}

// A steer that arrives after the last model call started is handed back
// in the Result, in order, and reaches neither the model nor the history;
// once the turn is ending, Steer refuses, so nothing accepted is lost.
func TestSteerAfterTheLastCallIsHandedBack(t *testing.T) {
	s := script(t)
	var a *Agent
	s.add(func(ctx context.Context, req *llm.Request, sink func(llm.Delta)) (*llm.Response, error) {
		a.Steer("also mention the tests")
		a.Steer("   ") // blank: refused, not handed back
		a.Steer("and the docs")
		return text("Here is the summary.")(ctx, req, sink)
	})
	var atEnd bool
	rec := &recorder{}
	a = New(Config{Client: s, Model: "m", Observer: rec.observe, OnTurnEnd: func(context.Context, *Result) error {
		atEnd = a.Steer("too late")
		return nil
	}})
	res, err := a.Run(context.Background(), Input{Message: "summarise"})
	if err != nil || !res.Completed {
		t.Fatalf("res %+v err %v", res, err)
	}
	if !slices.Equal(res.PendingSteer, []string{"also mention the tests", "and the docs"}) {
		t.Fatalf("PendingSteer = %q", res.PendingSteer)
	}
	if atEnd {
		t.Fatal("Steer accepted a text while the turn was ending")
	}
	for _, m := range res.Messages {
		if strings.Contains(m.Content, "mention the tests") {
			t.Fatalf("an undelivered steer entered the history: %+v", m)
		}
	}
	if n := len(rec.of(EventSteer)); n != 0 {
		t.Fatalf("%d steer events for steers never delivered", n)
	}
}

// An interrupted turn delivers nothing more: the steer comes back.
func TestAnInterruptedTurnHandsBackItsSteer(t *testing.T) {
	s := script(t).add(calls(call("c1", "wait", `{}`)))
	var a *Agent
	waiting := tool.Func{S: tool.Spec{Name: "wait", Class: tool.Parallel}, Fn: func(ctx context.Context, c tool.Call) (tool.Result, error) {
		a.Steer("stop waiting, use the cache")
		a.Interrupt()
		<-ctx.Done()
		return tool.Text("cancelled"), nil
	}}
	a = New(Config{Client: s, Model: "m", Tools: tool.NewRegistry(waiting)})
	res, err := a.Run(context.Background(), Input{Message: "wait for it"})
	if err != nil || !res.Interrupted {
		t.Fatalf("res %+v err %v", res, err)
	}
	if !slices.Equal(res.PendingSteer, []string{"stop waiting, use the cache"}) {
		t.Fatalf("PendingSteer = %q", res.PendingSteer)
	}
	for _, m := range res.Messages {
		if strings.Contains(m.Content, "use the cache") {
			t.Fatalf("the steer entered the history of an interrupted turn: %+v", m)
		}
	}
}
