package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/tool"
)

func echoTool() tool.Tool {
	return tool.Func{S: tool.Spec{Name: "echo", Class: tool.Parallel,
		Parameters: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`)},
		Fn: func(ctx context.Context, c tool.Call) (tool.Result, error) {
			var a struct{ Text string }
			json.Unmarshal(c.Args, &a)
			return tool.Text("echo: " + a.Text), nil
		}}
}

func call(id, name, args string) llm.ToolCall {
	return llm.ToolCall{ID: id, Name: name, Arguments: args}
}

type recorder struct {
	mu     sync.Mutex
	events []Event
}

func (r *recorder) observe(e Event) { r.mu.Lock(); r.events = append(r.events, e); r.mu.Unlock() }
func (r *recorder) of(k EventKind) []Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []Event
	for _, e := range r.events {
		if e.Kind == k {
			out = append(out, e)
		}
	}
	return out
}

func TestFiveRoundTaskRunsToFinalAnswer(t *testing.T) {
	s := script(t)
	for i := 1; i <= 5; i++ {
		s.add(calls(call(fmt.Sprintf("c%d", i), "echo", fmt.Sprintf(`{"text":"round %d"}`, i))))
	}
	s.add(text("all done"))
	rec := &recorder{}
	a := New(Config{Client: s, Model: "m", Tools: tool.NewRegistry(echoTool()), Observer: rec.observe,
		SystemPrompt: func(context.Context, string, string) (string, error) { return "You are Hermes.", nil }})
	res, err := a.Run(context.Background(), Input{Message: "do five things"})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Completed || res.FinalResponse != "all done" || res.APICalls != 6 || res.ExitReason != ExitText {
		t.Fatalf("result = %+v", res)
	}
	if res.TaskID == "" || res.Usage.TotalTokens != 5*15+12 {
		t.Fatalf("task id %q usage %+v", res.TaskID, res.Usage)
	}
	// user, then 5 x (assistant + tool), then the answer.
	if len(res.Messages) != 12 || res.Messages[0].Role != llm.RoleUser || res.Messages[11].Content != "all done" {
		t.Fatalf("history has %d messages: %+v", len(res.Messages), res.Messages)
	}
	reqs := s.requests()
	last := reqs[5].Messages
	if last[0].Role != llm.RoleSystem || last[0].Content != "You are Hermes." {
		t.Fatalf("first message of the request is %+v", last[0])
	}
	for i := 1; i <= 5; i++ {
		tm := last[2*i+1]
		if tm.Role != llm.RoleTool || tm.ToolCallID != fmt.Sprintf("c%d", i) || tm.Content != fmt.Sprintf("echo: round %d", i) {
			t.Fatalf("request message %d = %+v", 2*i+1, tm)
		}
	}
	if got := len(rec.of(EventToolFinished)); got != 5 {
		t.Fatalf("%d tool_finished events", got)
	}
	if got := len(rec.of(EventStep)); got != 6 {
		t.Fatalf("%d step events", got)
	}
}

func TestBudgetWarningsAtSeventyAndNinetyPercent(t *testing.T) {
	s := script(t)
	for i := 1; i <= 10; i++ {
		s.add(calls(call(fmt.Sprintf("c%d", i), "echo", `{"text":"x"}`)))
	}
	s.add(text("summary of the work"))
	rec := &recorder{}
	a := New(Config{Client: s, Model: "m", Tools: tool.NewRegistry(echoTool()), MaxIterations: 10, Observer: rec.observe})
	res, _ := a.Run(context.Background(), Input{Message: "loop forever"})

	reqs := s.requests()
	if len(reqs) != 11 {
		t.Fatalf("%d calls, want 10 + 1 summary", len(reqs))
	}
	lastTool := func(r *llm.Request) string {
		m := r.Messages[len(r.Messages)-1]
		if m.Role != llm.RoleTool {
			return ""
		}
		return m.Content
	}
	for i, r := range reqs[:10] {
		n := i + 1
		got := lastTool(r)
		switch {
		case n >= 9:
			want := fmt.Sprintf("[BUDGET WARNING: Iteration %d/10. Only %d left. Final response NOW.]", n, 10-n)
			if !strings.HasSuffix(got, want) {
				t.Errorf("call %d: newest tool result %q lacks %q", n, got, want)
			}
		case n >= 7:
			want := fmt.Sprintf("[BUDGET: Iteration %d/10. %d left. Start consolidating your work.]", n, 10-n)
			if !strings.HasSuffix(got, want) {
				t.Errorf("call %d: newest tool result %q lacks %q", n, got, want)
			}
		default:
			if strings.Contains(got, "BUDGET") {
				t.Errorf("call %d: early budget text %q", n, got)
			}
		}
	}
	// The warnings live in the API copy only.
	for _, m := range res.Messages {
		if strings.Contains(m.Content, "BUDGET") {
			t.Fatalf("budget text leaked into the history: %q", m.Content)
		}
	}
	summary := reqs[10]
	if len(summary.Tools) != 0 || !strings.Contains(summary.Messages[len(summary.Messages)-1].Content, "maximum number of tool-calling iterations") {
		t.Fatalf("summary call has %d tools, last message %+v", len(summary.Tools), summary.Messages[len(summary.Messages)-1])
	}
	if res.ExitReason != ExitMaxIterations || res.Completed || res.FinalResponse != "summary of the work" {
		t.Fatalf("result %+v", res)
	}
	if n := len(rec.of(EventBudgetWarning)); n != 5 { // calls 7,8,9,10 and the 100% notice
		t.Fatalf("%d budget events", n)
	}
}

func TestBudgetWarningsCanBeTurnedOff(t *testing.T) {
	s := script(t)
	for i := 1; i <= 4; i++ {
		s.add(calls(call(fmt.Sprintf("c%d", i), "echo", `{"text":"x"}`)))
	}
	s.add(text("done"))
	off := false
	a := New(Config{Client: s, Model: "m", Tools: tool.NewRegistry(echoTool()), MaxIterations: 5, BudgetWarnings: &off})
	a.Run(context.Background(), Input{Message: "go"})
	for _, r := range s.requests() {
		for _, m := range r.Messages {
			if strings.Contains(m.Content, "BUDGET") {
				t.Fatalf("budget text sent while off: %q", m.Content)
			}
		}
	}
}

func TestIterationBudgetIsSafeForConcurrentUse(t *testing.T) {
	b := NewIterationBudget(1000)
	var wg sync.WaitGroup
	var ok sync.Map
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				if b.Consume() {
					ok.Store(fmt.Sprint(g, i), true)
				}
			}
		}(g)
	}
	wg.Wait()
	n := 0
	ok.Range(func(any, any) bool { n++; return true })
	if n != 1000 || b.Remaining() != 0 || b.Consume() {
		t.Fatalf("granted %d of 1000, remaining %d", n, b.Remaining())
	}
	b.Refund()
	if b.Remaining() != 1 {
		t.Fatal("refund did not give an iteration back")
	}
	for i := 0; i < 2000; i++ {
		b.Refund()
	}
	if b.Used() != 0 {
		t.Fatalf("refund went below zero: used %d", b.Used())
	}
}

func TestInterruptStopsAModelCallThatIgnoresItsContext(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	started := make(chan struct{})
	s := script(t).add(func(ctx context.Context, req *llm.Request, sink func(llm.Delta)) (*llm.Response, error) {
		sink(llm.Delta{Kind: llm.DeltaText, Text: "partial answ"})
		close(started)
		<-release // a client that never looks at ctx
		return &llm.Response{Message: llm.Assistant("late")}, nil
	})
	a := New(Config{Client: s, Model: "m"})
	go func() { <-started; a.Interrupt() }()
	res, err := a.Run(context.Background(), Input{Message: "hello"})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Interrupted || res.Completed || res.ExitReason != ExitInterruptedDuringAPI {
		t.Fatalf("result %+v", res)
	}
	// The prompt stays, closed by the interrupted mark; the streamed
	// fragment never enters the history.
	if len(res.Messages) != 2 || res.Messages[0].Role != llm.RoleUser ||
		res.Messages[1].FinishReason != llm.FinishInterrupted || res.Messages[1].Content != InterruptedNote {
		t.Fatalf("history after the interrupt: %+v", res.Messages)
	}
}

func TestContextCancelInterruptsTheTurn(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	s := script(t).add(func(c context.Context, req *llm.Request, sink func(llm.Delta)) (*llm.Response, error) {
		cancel()
		<-c.Done()
		return nil, c.Err()
	})
	res, _ := New(Config{Client: s, Model: "m"}).Run(ctx, Input{Message: "hi"})
	if !res.Interrupted {
		t.Fatalf("result %+v", res)
	}
}

func TestRepairsAreReportedAsEvents(t *testing.T) {
	s := script(t).add(text("ok"))
	rec := &recorder{}
	a := New(Config{Client: s, Model: "m", Observer: rec.observe})
	history := []llm.Message{
		llm.User("first"),
		llm.User("first, again"), // two prompts in a row
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{call("a", "echo", "{}")}}, // result missing
		llm.ToolResult("ghost", "echo", "orphan"),                                     // no call
		llm.User("second"),
		llm.Assistant("answered"),
	}
	res, _ := a.Run(context.Background(), Input{Message: "third", History: history})
	ev := rec.of(EventRepair)
	if len(ev) != 1 || ev[0].Repairs.MissingResults != 1 || ev[0].Repairs.OrphanResults != 1 || ev[0].Repairs.MergedUsers != 1 {
		t.Fatalf("repair events %+v", ev)
	}
	sent := s.requests()[0].Messages
	roles := []string{}
	for _, m := range sent {
		roles = append(roles, string(m.Role))
	}
	if strings.Join(roles, ",") != "user,assistant,tool,user,assistant,user" || sent[0].Content != "first\n\nfirst, again" {
		t.Fatalf("sent %v %q", roles, sent[0].Content)
	}
	if len(history) != 6 || history[3].ToolCallID != "ghost" {
		t.Fatal("the caller's history was modified")
	}
	if !res.Completed {
		t.Fatalf("result %+v", res)
	}
}

func TestLengthCutGetsThreeContinuationsThenPartial(t *testing.T) {
	cut := func(s string) func(context.Context, *llm.Request, func(llm.Delta)) (*llm.Response, error) {
		return reply(&llm.Response{Message: llm.Assistant(s), FinishReason: llm.FinishLength})
	}
	s := script(t).add(cut("one "), cut("two "), cut("three "), text("four"))
	res, _ := New(Config{Client: s, Model: "m"}).Run(context.Background(), Input{Message: "write"})
	if !res.Completed || res.FinalResponse != "one two three four" {
		t.Fatalf("result %+v", res)
	}
	if last := s.requests()[3].Messages; last[len(last)-1].Content != continuationPrompt || last[len(last)-2].Content != "three " {
		t.Fatalf("continuation request ends with %+v", last[len(last)-2:])
	}
	if len(res.Messages) != 2 {
		t.Fatalf("scaffold entered the history: %+v", res.Messages)
	}

	s = script(t).add(cut("a"), cut("b"), cut("c"), cut("d"))
	res, _ = New(Config{Client: s, Model: "m"}).Run(context.Background(), Input{Message: "write"})
	if !res.Partial || res.Completed || res.FinalResponse != "abcd" || res.ExitReason != ExitLength {
		t.Fatalf("result %+v", res)
	}
}

func TestRefusalFailsWithoutRetry(t *testing.T) {
	s := script(t).add(reply(&llm.Response{FinishReason: llm.FinishContentFilter, Refusal: "I can't help with that."}), text("never"))
	res, _ := New(Config{Client: s, Model: "m"}).Run(context.Background(), Input{Message: "bad"})
	if !res.Failed || res.ExitReason != ExitContentFilter || len(s.requests()) != 1 || !strings.HasPrefix(res.Error.Error(), "content_policy_blocked:") {
		t.Fatalf("result %+v after %d calls", res, len(s.requests()))
	}
}

func TestEmptyResponsesAreRetriedThenFail(t *testing.T) {
	s := script(t).add(text(""), text("   "), text("finally"))
	res, _ := New(Config{Client: s, Model: "m"}).Run(context.Background(), Input{Message: "hi"})
	if !res.Completed || res.FinalResponse != "finally" || res.APICalls != 3 {
		t.Fatalf("result %+v", res)
	}
	s = script(t).add(text(""), text(""), text(""), text(""))
	res, _ = New(Config{Client: s, Model: "m"}).Run(context.Background(), Input{Message: "hi"})
	if !res.Failed || res.ExitReason != ExitEmptyResponse {
		t.Fatalf("result %+v", res)
	}
}

func TestEmptyResponseAfterToolsGetsOneNudge(t *testing.T) {
	s := script(t).add(calls(call("c1", "echo", `{"text":"x"}`)), text(""), text("answer"))
	res, _ := New(Config{Client: s, Model: "m", Tools: tool.NewRegistry(echoTool())}).Run(context.Background(), Input{Message: "hi"})
	nudge := s.requests()[2].Messages
	if nudge[len(nudge)-1].Content != emptyAfterToolsNudge || nudge[len(nudge)-2].Content != "(empty)" {
		t.Fatalf("third request ends with %+v", nudge[len(nudge)-2:])
	}
	if !res.Completed || len(res.Messages) != 4 {
		t.Fatalf("result %+v", res)
	}
}

func TestInvalidResponseFailsWithClearError(t *testing.T) {
	s := script(t).add(fail(&llm.ProviderError{Kind: llm.ErrInvalidResponse, Message: "response had no choices"}))
	res, _ := New(Config{Client: s, Model: "m"}).Run(context.Background(), Input{Message: "hi"})
	if !res.Failed || res.ExitReason != ExitInvalidResponse || !strings.Contains(res.Error.Error(), "no choices") {
		t.Fatalf("result %+v", res)
	}
}

func TestTruncatedToolArgumentsAreNeverRun(t *testing.T) {
	trunc := reply(&llm.Response{Message: llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{call("c", "echo", `{"text":"abc`)}}, FinishReason: llm.FinishLength})
	s := script(t).add(trunc, trunc, trunc, trunc)
	ran := false
	reg := tool.NewRegistry(tool.Func{S: tool.Spec{Name: "echo"}, Fn: func(context.Context, tool.Call) (tool.Result, error) { ran = true; return tool.Text(""), nil }})
	res, _ := New(Config{Client: s, Model: "m", Tools: reg}).Run(context.Background(), Input{Message: "hi"})
	if ran || !res.Partial || res.ExitReason != ExitLength {
		t.Fatalf("ran=%v result %+v", ran, res)
	}
}

func TestSameFailingCallWarnsThenHalts(t *testing.T) {
	s := script(t)
	for i := 0; i < 6; i++ {
		s.add(calls(call(fmt.Sprint("c", i), "broken", `{}`)))
	}
	reg := tool.NewRegistry(tool.Func{S: tool.Spec{Name: "broken"}, Fn: func(context.Context, tool.Call) (tool.Result, error) {
		return tool.Result{}, errors.New("always fails")
	}})
	res, _ := New(Config{Client: s, Model: "m", Tools: reg}).Run(context.Background(), Input{Message: "hi"})
	if res.ExitReason != ExitGuardrailHalt || res.APICalls != 5 {
		t.Fatalf("result %+v", res)
	}
	var results []string
	for _, m := range res.Messages {
		if m.Role == llm.RoleTool {
			results = append(results, m.Content)
		}
	}
	if strings.Contains(results[0], "GUARDRAIL") || !strings.Contains(results[1], "GUARDRAIL WARNING") || !strings.Contains(results[4], "turn is stopped") {
		t.Fatalf("results %q", results)
	}
}

func TestUnknownToolIsAResultListingTheTools(t *testing.T) {
	s := script(t).add(calls(call("c1", "ech0", `{}`)), text("sorry"))
	res, _ := New(Config{Client: s, Model: "m", Tools: tool.NewRegistry(echoTool())}).Run(context.Background(), Input{Message: "hi"})
	tm := res.Messages[2]
	if tm.Role != llm.RoleTool || !strings.Contains(tm.Content, "Tool 'ech0' does not exist. Available tools: echo") {
		t.Fatalf("tool message %+v", tm)
	}
}

func TestContinueFromToolResultTail(t *testing.T) {
	s := script(t).add(text("continued"))
	h := []llm.Message{llm.User("q"), {Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{call("c", "echo", "{}")}}, llm.ToolResult("c", "echo", "r")}
	res, err := New(Config{Client: s, Model: "m"}).Run(context.Background(), Input{History: h})
	if err != nil || res.FinalResponse != "continued" || len(res.Messages) != 4 {
		t.Fatalf("err %v result %+v", err, res)
	}
	if _, err := New(Config{Client: s, Model: "m"}).Run(context.Background(), Input{History: h[:1]}); err == nil {
		t.Fatal("empty message on a user tail was accepted")
	}
}

func TestChatKeepsHistoryAcrossTurnsAndSystemPromptStable(t *testing.T) {
	s := script(t).add(text("one"), text("two"))
	builds := 0
	a := New(Config{Client: s, Model: "m", SystemPrompt: func(context.Context, string, string) (string, error) {
		builds++
		return fmt.Sprintf("prompt v%d", builds), nil
	}})
	if out, err := a.Chat(context.Background(), "a"); err != nil || out != "one" {
		t.Fatal(out, err)
	}
	if out, err := a.Chat(context.Background(), "b"); err != nil || out != "two" {
		t.Fatal(out, err)
	}
	r := s.requests()
	if builds != 1 || r[0].Messages[0].Content != r[1].Messages[0].Content || len(r[1].Messages) != 4 {
		t.Fatalf("builds %d, second request %+v", builds, r[1].Messages)
	}
}

// BenchmarkLoopRoundInProcess is the loop's own cost per tool round with
// an in-process client and a no-op tool: no network, no JSON on a wire.
func BenchmarkLoopRoundInProcess(b *testing.B) {
	client := llm.ClientFunc(func(ctx context.Context, req *llm.Request, sink func(llm.Delta)) (*llm.Response, error) {
		if req.Messages[len(req.Messages)-1].Role == llm.RoleTool {
			return &llm.Response{Message: llm.Assistant("done"), FinishReason: llm.FinishStop}, nil
		}
		return &llm.Response{Message: llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{call("c", "echo", `{"text":"x"}`)}}, FinishReason: llm.FinishToolCalls}, nil
	})
	a := New(Config{Client: client, Model: "m", Tools: tool.NewRegistry(echoTool())})
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if res, _ := a.Run(context.Background(), Input{Message: "go", History: []llm.Message{}}); !res.Completed {
			b.Fatal(res)
		}
	}
}

// BenchmarkInterruptLatency measures the time from Interrupt to Run
// returning while a model call is in flight (and ignores its context).
func BenchmarkInterruptLatency(b *testing.B) {
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		started := make(chan struct{})
		release := make(chan struct{})
		client := llm.ClientFunc(func(ctx context.Context, req *llm.Request, sink func(llm.Delta)) (*llm.Response, error) {
			close(started)
			<-release
			return nil, ctx.Err()
		})
		a := New(Config{Client: client, Model: "m"})
		done := make(chan *Result)
		go func() { r, _ := a.Run(context.Background(), Input{Message: "x"}); done <- r }()
		<-started
		b.StartTimer()
		a.Interrupt()
		r := <-done
		b.StopTimer()
		close(release)
		if !r.Interrupted {
			b.Fatal("not interrupted")
		}
	}
}
