package agent

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/llm/llmtest"
	"github.com/hermes-go/hermes/tool"
)

func TestSetModelAppliesToTheNextTurnAndRebuildsThePrompt(t *testing.T) {
	first := script(t).add(text("one"))
	second := script(t).add(text("two"))
	var prompts []string
	a := New(Config{Client: first, Model: "m1", Provider: "p1", SystemPrompt: func(_ context.Context, model, provider string) (string, error) {
		prompts = append(prompts, model+"@"+provider)
		return "You are on " + model, nil
	}})
	if _, err := a.Chat(context.Background(), "a"); err != nil {
		t.Fatal(err)
	}
	a.SetModel(ModelChoice{Client: second, Model: "m2", Provider: "p2", ContextLength: 1234})
	if m, p, ok := a.PendingModel(); !ok || m != "m2" || p != "p2" {
		t.Fatalf("pending %q %q %v", m, p, ok)
	}
	if m, _ := a.Model(); m != "m1" {
		t.Fatalf("the switch applied before the next turn: %s", m)
	}
	res, err := a.Run(context.Background(), Input{Message: "b"})
	if err != nil || res.FinalResponse != "two" || res.Model != "m2" || res.Provider != "p2" {
		t.Fatalf("result %+v err %v", res, err)
	}
	if _, _, ok := a.PendingModel(); ok || a.ContextLength() != 1234 {
		t.Fatalf("pending left or context %d", a.ContextLength())
	}
	req := second.requests()[0]
	if req.Model != "m2" || req.Messages[0].Content != "You are on m2" || len(req.Messages) != 4 {
		t.Fatalf("second model's request %+v", req)
	}
	if len(prompts) != 2 || prompts[1] != "m2@p2" {
		t.Fatalf("prompts built %v", prompts)
	}
}

func TestDropLastTurnRemovesTheExchangeAndReturnsIt(t *testing.T) {
	s := script(t).add(text("one"), calls(call("c1", "echo", `{"text":"x"}`)), text("two"), text("again"))
	a := New(Config{Client: s, Model: "m", Tools: tool.NewRegistry(echoTool())})
	if _, err := a.DropLastTurn(); !errors.Is(err, ErrNothingToUndo) {
		t.Fatalf("empty history: %v", err)
	}
	a.Chat(context.Background(), "first")
	a.Chat(context.Background(), "second")
	if n := len(a.History()); n != 6 {
		t.Fatalf("history %d", n)
	}
	dropped, err := a.DropLastTurn()
	if err != nil || len(dropped) != 4 || dropped[0].Content != "second" || dropped[3].Content != "two" {
		t.Fatalf("dropped %+v err %v", dropped, err)
	}
	h := a.History()
	if len(h) != 2 || h[1].Content != "one" {
		t.Fatalf("history after undo %+v", h)
	}
	// The next call sees the history without the dropped exchange.
	a.Chat(context.Background(), "third")
	if msgs := s.requests()[3].Messages; len(msgs) != 3 || msgs[2].Content != "third" {
		t.Fatalf("request after undo %+v", msgs)
	}
}

func TestSwitchSessionStartsAfresh(t *testing.T) {
	st := newMemStore()
	s := script(t).add(text("one"), text("two"))
	a := New(Config{Client: s, Model: "m", Store: st, Session: SessionMeta{ID: "s1"}, SystemPrompt: func(context.Context, string, string) (string, error) { return "sys", nil }})
	a.Chat(context.Background(), "a")
	if err := a.SwitchSession(SessionMeta{ID: "s2"}, nil, ""); err != nil {
		t.Fatal(err)
	}
	a.Chat(context.Background(), "b")
	if a.SessionID() != "s2" || len(a.History()) != 2 {
		t.Fatalf("session %s history %+v", a.SessionID(), a.History())
	}
	if msgs := s.requests()[1].Messages; len(msgs) != 2 || msgs[1].Content != "b" {
		t.Fatalf("second session's request %+v", msgs)
	}
	if _, ok := st.sessions["s2"]; !ok || len(st.msgs["s2"]) != 2 || st.prompts["s2"] != "sys" {
		t.Fatalf("store %+v", st)
	}
	if err := a.SwitchSession(SessionMeta{}, nil, ""); err == nil {
		t.Fatal("a session without id was accepted")
	}
}

func TestRunToolGoesThroughTheApproverAndKeepsTheHistory(t *testing.T) {
	var asked []string
	approver := tool.ApproverFunc(func(_ context.Context, req tool.ApprovalRequest) error {
		asked = append(asked, req.Command)
		if strings.Contains(req.Command, "rm") {
			return errors.New("DENIED")
		}
		return nil
	})
	shell := shellTool{}
	var events []EventKind
	a := New(Config{Client: llmtest.NewClient(t), Model: "m", Tools: tool.NewRegistry(shell), Approver: approver,
		Observer: func(e Event) { events = append(events, e.Kind) }})
	out, err := a.RunTool(context.Background(), "sh", json.RawMessage(`{"command":"echo hi"}`))
	if err != nil || out.Result.IsError || out.Result.Content != "ran echo hi" {
		t.Fatalf("outcome %+v err %v", out, err)
	}
	out, _ = a.RunTool(context.Background(), "sh", json.RawMessage(`{"command":"rm -rf x"}`))
	if !out.Result.IsError || !strings.Contains(out.Result.Content, "DENIED") {
		t.Fatalf("denied command ran: %+v", out)
	}
	if len(asked) != 2 || len(a.History()) != 0 {
		t.Fatalf("asked %v history %v", asked, a.History())
	}
	if len(events) != 4 || events[0] != EventToolStarted || events[1] != EventToolFinished {
		t.Fatalf("events %v", events)
	}
}

// shellTool echoes its command; it is a tool.Commander, so its commands
// pass the approver.
type shellTool struct{}

func (shellTool) Spec() tool.Spec {
	return tool.Spec{Name: "sh", Parameters: json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"}}}`)}
}

func (shellTool) Command(args json.RawMessage) (string, bool) {
	var a struct{ Command string }
	return a.Command, json.Unmarshal(args, &a) == nil
}

func (shellTool) Run(_ context.Context, c tool.Call) (tool.Result, error) {
	cmd, _ := shellTool{}.Command(c.Args)
	return tool.Text("ran " + cmd), nil
}
