package agent

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/tool"
)

// gateTools are n parallel tools that finish only once all n have
// started, so their events are emitted from n goroutines at once.
func gateTools(n int) (*tool.Registry, []llm.ToolCall) {
	var started sync.WaitGroup
	started.Add(n)
	reg := &tool.Registry{}
	var cs []llm.ToolCall
	for i := range n {
		name := fmt.Sprintf("gate%d", i)
		reg.MustRegister(tool.Func{S: tool.Spec{Name: name, Class: tool.Parallel}, Fn: func(ctx context.Context, c tool.Call) (tool.Result, error) {
			started.Done()
			started.Wait()
			return tool.Text(name + " done"), nil
		}})
		cs = append(cs, call(fmt.Sprintf("c%d", i), name, `{}`))
	}
	return reg, cs
}

func TestEventsReachTheObserverInOrderOneAtATime(t *testing.T) {
	reg, cs := gateTools(8)
	s := script(t).add(calls(cs...), text("all gates passed"))
	var inside atomic.Int32
	var overlap atomic.Bool
	var mu sync.Mutex
	var got []Event
	a := New(Config{Client: s, Model: "m", Tools: reg, Observer: func(e Event) {
		if inside.Add(1) > 1 {
			overlap.Store(true)
		}
		mu.Lock()
		got = append(got, e)
		mu.Unlock()
		inside.Add(-1)
	}})
	res, err := a.Run(context.Background(), Input{Message: "open the gates"})
	if err != nil || !res.Completed {
		t.Fatalf("res %+v err %v", res, err)
	}
	if overlap.Load() {
		t.Fatal("the observer was called from two goroutines at once")
	}
	mu.Lock()
	defer mu.Unlock()
	// Every event of the turn was delivered before Run returned, EventDone last.
	if len(got) == 0 || got[len(got)-1].Kind != EventDone || got[len(got)-1].Result != res {
		t.Fatalf("last event is not the turn's EventDone: %+v", got[len(got)-1])
	}
	started := map[string]int{}
	for i, e := range got {
		switch e.Kind {
		case EventToolStarted:
			started[e.Tool.CallID] = i
		case EventToolFinished:
			j, ok := started[e.Tool.CallID]
			if !ok || j > i {
				t.Fatalf("call %s finished before it started", e.Tool.CallID)
			}
		}
	}
	if len(started) != 8 {
		t.Fatalf("%d tool_started events, want 8", len(started))
	}
	// Steps come in order, the second after every tool finished.
	var steps []int
	for _, e := range got {
		if e.Kind == EventStep {
			steps = append(steps, e.Step)
		}
	}
	if fmt.Sprint(steps) != "[1 2]" {
		t.Fatalf("steps %v", steps)
	}
}

func TestStreamYieldsTheTurnAndEndsWithDone(t *testing.T) {
	s := script(t).add(calls(call("c1", "echo", `{"text":"hi"}`)), text("streamed answer"))
	var observed atomic.Int32
	a := New(Config{Client: s, Model: "m", Tools: tool.NewRegistry(echoTool()), Observer: func(Event) { observed.Add(1) }})
	var kinds []EventKind
	var last Event
	for e, err := range a.Stream(context.Background(), Input{Message: "say hi"}) {
		if err != nil {
			t.Fatal(err)
		}
		kinds = append(kinds, e.Kind)
		last = e
	}
	if last.Kind != EventDone || last.Result == nil || !last.Result.Completed || last.Result.FinalResponse != "streamed answer" {
		t.Fatalf("last event %+v", last)
	}
	want := []EventKind{EventStep, EventAssistant, EventToolStarted, EventToolFinished, EventStep, EventTextDelta, EventAssistant, EventDone}
	if fmt.Sprint(kinds) != fmt.Sprint(want) {
		t.Fatalf("events %v\nwant   %v", kinds, want)
	}
	if int(observed.Load()) != len(kinds) {
		t.Fatalf("the observer got %d events, the stream %d", observed.Load(), len(kinds))
	}
}

func TestStoppingAStreamInterruptsTheTurn(t *testing.T) {
	blocking := tool.Func{S: tool.Spec{Name: "wait"}, Fn: func(ctx context.Context, c tool.Call) (tool.Result, error) {
		<-ctx.Done()
		return tool.Error("stopped"), nil
	}}
	s := script(t).add(calls(call("c1", "wait", `{}`)))
	done := make(chan *Result, 1)
	a := New(Config{Client: s, Model: "m", Tools: tool.NewRegistry(blocking), Observer: func(e Event) {
		if e.Kind == EventDone {
			done <- e.Result
		}
	}})
	for e, err := range a.Stream(context.Background(), Input{Message: "wait forever"}) {
		if err != nil {
			t.Fatal(err)
		}
		if e.Kind == EventToolStarted {
			break
		}
	}
	// The loop has returned, so the turn is over: a new one may start.
	res := <-done
	if !res.Interrupted || res.ExitReason != ExitInterrupted {
		t.Fatalf("result after the stream stopped: %+v", res)
	}
	s.add(text("back"))
	if res, err := a.Run(context.Background(), Input{Message: "again"}); err != nil || res.FinalResponse != "back" {
		t.Fatalf("the next turn after the stream stopped: %+v, %v", res, err)
	}
}

func TestStreamOfABusyAgentYieldsErrBusy(t *testing.T) {
	entered := make(chan struct{})
	s := script(t).add(func(ctx context.Context, req *llm.Request, sink func(llm.Delta)) (*llm.Response, error) {
		close(entered)
		<-ctx.Done()
		return nil, ctx.Err()
	})
	a := New(Config{Client: s, Model: "m"})
	go a.Run(context.Background(), Input{Message: "hang"})
	<-entered
	defer a.Interrupt()
	for _, err := range a.Stream(context.Background(), Input{Message: "second"}) {
		if !errors.Is(err, ErrBusy) {
			t.Fatalf("err = %v, want ErrBusy", err)
		}
		return
	}
	t.Fatal("Stream yielded nothing")
}

// switching is a Router: its first call falls back to another model, as
// provider.Chain does, and says so in the stream.
type switching struct {
	mu      sync.Mutex
	active  string
	resets  int
	systems []string
}

func (s *switching) ResetTurn() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.resets++
	s.active = "primary-model"
	return true
}

func (s *switching) Active() (string, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.active == "backup-model" {
		return "backup-model", "backup"
	}
	return "primary-model", "primary"
}

func (s *switching) Complete(ctx context.Context, req *llm.Request, sink func(llm.Delta)) (*llm.Response, error) {
	s.mu.Lock()
	s.systems = append(s.systems, req.Messages[0].Content)
	s.active = "backup-model"
	s.mu.Unlock()
	sink(llm.Delta{Kind: llm.DeltaText, Text: "half"})
	sink(llm.Delta{Kind: llm.DeltaFallback, Text: "switched to backup/backup-model", Model: "backup-model", Provider: "backup", Restart: true})
	sink(llm.Delta{Kind: llm.DeltaText, Text: "whole answer"})
	return &llm.Response{Message: llm.Assistant("whole answer"), FinishReason: llm.FinishStop}, nil
}

func TestTheRouterOwnsTheFallbackState(t *testing.T) {
	r := &switching{}
	rec := &recorder{}
	a := New(Config{Client: r, Model: "primary-model", Provider: "primary", Observer: rec.observe, KeepPartialOnInterrupt: true,
		SystemPrompt: func(ctx context.Context, model, provider string) (string, error) {
			return "Model: " + model + "\nProvider: " + provider, nil
		}})
	res, err := a.Run(context.Background(), Input{Message: "hi"})
	if err != nil || !res.Completed {
		t.Fatalf("res %+v err %v", res, err)
	}
	if res.Model != "backup-model" || res.Provider != "backup" {
		t.Fatalf("result names %s/%s, want the router's active backup", res.Provider, res.Model)
	}
	fb := rec.of(EventFallback)
	if len(fb) != 1 || !fb[0].Restart || fb[0].Text != "switched to backup/backup-model" {
		t.Fatalf("fallback events %+v", fb)
	}
	// The agent sends the primary's prompt; rewriting it is the router's job.
	if r.systems[0] != "Model: primary-model\nProvider: primary" {
		t.Fatalf("system prompt sent %q", r.systems[0])
	}
	if _, err := a.Run(context.Background(), Input{Message: "again"}); err != nil {
		t.Fatal(err)
	}
	if r.resets != 2 {
		t.Fatalf("ResetTurn called %d times over two turns", r.resets)
	}
}

func TestExitReasonDecidesTheResultFlags(t *testing.T) {
	tests := []struct {
		exit                                    ExitReason
		completed, interrupted, partial, failed bool
	}{
		{ExitText, true, false, false, false},
		{ExitInterrupted, false, true, false, false},
		{ExitInterruptedDuringAPI, false, true, false, false},
		{ExitLength, false, false, true, false},
		{ExitMaxIterations, false, false, true, false},
		{ExitProviderError, false, false, false, true},
		{ExitContentFilter, false, false, false, true},
		{ExitCompressionExhausted, false, false, false, true},
		{ExitGuardrailHalt, false, false, false, true},
		{ExitEmptyResponse, false, false, false, true},
		{ExitInvalidResponse, false, false, false, true},
	}
	for _, tt := range tests {
		c, i, p, f := tt.exit.outcome()
		if c != tt.completed || i != tt.interrupted || p != tt.partial || f != tt.failed {
			t.Errorf("%s: completed %v interrupted %v partial %v failed %v", tt.exit, c, i, p, f)
		}
	}
}

// Durations and event times come from the injected clock.
func TestTheInjectedClockTimesToolsAndEvents(t *testing.T) {
	base := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	var ticks atomic.Int64
	now := func() time.Time { return base.Add(time.Duration(ticks.Add(1)) * time.Second) }
	s := script(t).add(calls(call("c1", "echo", `{"text":"x"}`)), text("ok"))
	rec := &recorder{}
	a := New(Config{Client: s, Model: "m", Tools: tool.NewRegistry(echoTool()), Observer: rec.observe, Now: now})
	if _, err := a.Run(context.Background(), Input{Message: "go"}); err != nil {
		t.Fatal(err)
	}
	fin := rec.of(EventToolFinished)
	if len(fin) != 1 || fin[0].Tool.Duration <= 0 || fin[0].Tool.Duration%time.Second != 0 {
		t.Fatalf("tool duration %v is not from the injected clock", fin[0].Tool.Duration)
	}
	for _, e := range rec.events {
		if e.Time.Before(base) || e.Time.Sub(base)%time.Second != 0 {
			t.Fatalf("%s event at %v, not from the injected clock", e.Kind, e.Time)
		}
	}
}

// Code around the agent reports through Notify: in order with the loop's
// events during a turn, delivered before Notify returns outside one.
func TestNotifyJoinsTheOrderedStream(t *testing.T) {
	var a *Agent
	noisy := tool.Func{S: tool.Spec{Name: "noisy"}, Fn: func(ctx context.Context, c tool.Call) (tool.Result, error) {
		a.Notify(Event{Kind: EventWarning, Text: "from the tool"})
		return tool.Text("ok"), nil
	}}
	s := script(t).add(calls(call("c1", "noisy", `{}`)), text("done"))
	rec := &recorder{}
	a = New(Config{Client: s, Model: "m", Tools: tool.NewRegistry(noisy), Observer: rec.observe})
	if _, err := a.Run(context.Background(), Input{Message: "go"}); err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, e := range rec.events {
		switch e.Kind {
		case EventToolStarted, EventToolFinished, EventWarning:
			order = append(order, string(e.Kind))
		}
	}
	if fmt.Sprint(order) != "[tool_started warning tool_finished]" {
		t.Fatalf("order %v", order)
	}
	a.Notify(Event{Kind: EventWarning, Text: "after the turn"})
	if w := rec.of(EventWarning); len(w) != 2 || w[1].Text != "after the turn" {
		t.Fatalf("warnings %+v", w)
	}
}
