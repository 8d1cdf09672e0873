package delegate

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/hermes-go/hermes/agent"
	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/tool"
)

func TestBatchRunsOneChildPerTaskBoundedAndReportsInTaskOrder(t *testing.T) {
	// In a synctest bubble, synctest.Wait returns once every goroutine is
	// blocked: the number of children running then is exact.
	synctest.Test(t, func(t *testing.T) {
		var active, started atomic.Int32
		release := make(chan struct{})
		gated := func(out string) step {
			return answer(func(ctx context.Context, _ *llm.Request, _ func(llm.Delta)) (*llm.Response, error) {
				active.Add(1)
				started.Add(1)
				defer active.Add(-1)
				select {
				case <-release:
				case <-ctx.Done():
					return nil, ctx.Err()
				}
				return &llm.Response{Message: llm.Assistant(out), FinishReason: llm.FinishStop}, nil
			})
		}
		r := newRouter(t).
			on("alpha goal", gated("alpha answer")).
			on("beta goal", gated("beta answer")).
			on("gamma goal", gated("gamma answer"))
		ev := &events{}
		d := New(Options{Parent: agent.Config{Client: r, Model: "m"}, MaxConcurrentChildren: 2, Observer: ev.observe})

		done := make(chan tool.Result, 1)
		go func() {
			res, _ := d.Run(context.Background(), call(`{"tasks":[{"goal":"alpha goal"},{"goal":"beta goal"},{"goal":"gamma goal"}]}`))
			done <- res
		}()
		synctest.Wait()
		if a, s := active.Load(), started.Load(); a != 2 || s != 2 {
			t.Fatalf("with MaxConcurrentChildren 2: %d running, %d started", a, s)
		}
		release <- struct{}{} // one finishes; the third takes its slot
		synctest.Wait()
		if a, s := active.Load(), started.Load(); a != 2 || s != 3 {
			t.Fatalf("after one finished: %d running, %d started", a, s)
		}
		release <- struct{}{}
		release <- struct{}{}
		res := <-done

		if res.IsError {
			t.Fatalf("batch result is an error:\n%s", res.Content)
		}
		c := res.Content
		if !strings.HasPrefix(c, "delegate_task: 3 tasks: 3 completed.") {
			t.Fatalf("summary line:\n%s", c)
		}
		a, b, g := strings.Index(c, "alpha answer"), strings.Index(c, "beta answer"), strings.Index(c, "gamma answer")
		if a < 0 || b < 0 || g < 0 || !(a < b && b < g) {
			t.Fatalf("answers missing or out of task order:\n%s", c)
		}
		for i, goal := range []string{"alpha goal", "beta goal", "gamma goal"} {
			if !strings.Contains(c, fmt.Sprintf("=== Task %d: %s\nstatus: completed · exit: text_response · api calls: 1", i+1, goal)) {
				t.Errorf("task %d section missing:\n%s", i+1, c)
			}
			// Each child starts from nothing: its system prompt and its goal.
			reqs := r.requests(goal)
			if len(reqs) != 1 || len(reqs[0].Messages) != 2 || reqs[0].Messages[1].Content != goal {
				t.Errorf("%s: child's first request is not [system, goal]: %+v", goal, reqs)
			}
		}
		ids := map[string]bool{}
		for _, e := range ev.all() {
			if e.Depth == 1 {
				ids[e.AgentID] = true
			}
		}
		if len(ids) != 3 || !ids["/1"] || !ids["/2"] || !ids["/3"] {
			t.Fatalf("child agent ids in events = %v", ids)
		}
	})
}

func TestChildToolsLeaveOutBlockedTools(t *testing.T) {
	reg := tool.NewRegistry(&shell{}, named("read_file", "file", ""), named("web_search", "web", ""),
		named("clarify", "clarify", ""), named("memory", "memory", ""), named("delegate_task", "delegation", ""),
		named("execute_code", "code_execution", ""), named("send_message", "messaging", ""))
	tests := []struct {
		name     string
		toolsets string
		want     []string
		note     string
	}{
		{"all the parent's tools it may use", ``, []string{"read_file", "terminal", "web_search"}, ""},
		{"narrowed to toolsets", `,"toolsets":["file","terminal"]`, []string{"read_file", "terminal"}, ""},
		{"a blocked toolset cannot be asked for", `,"toolsets":["memory","file"]`, []string{"read_file"}, `toolset "memory" is not available`},
		{"only unknown toolsets: no tools rather than all", `,"toolsets":["nope"]`, nil, "the subagent ran without tools"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newRouter(t).on("list tools", text("done"))
			d := New(Options{Parent: agent.Config{Client: r, Model: "m", Tools: reg}})
			res, _ := d.Run(context.Background(), call(`{"goal":"list tools"`+tc.toolsets+`}`))
			if res.IsError {
				t.Fatalf("result: %s", res.Content)
			}
			if got := toolNames(r.requests("list tools")[0]); !slices.Equal(got, tc.want) {
				t.Fatalf("child tools = %v, want %v", got, tc.want)
			}
			if !strings.Contains(res.Content, tc.note) {
				t.Fatalf("result lacks note %q:\n%s", tc.note, res.Content)
			}
		})
	}
}

func TestFailingChildIsReportedWithItsPartialOutput(t *testing.T) {
	reg := tool.NewRegistry(named("read_file", "file", "partial finding: 42 files use the old API"))
	r := newRouter(t).
		on("audit the API", callTool("c1", "read_file", `{}`), fail(&llm.ProviderError{Kind: llm.ErrBadRequest, StatusCode: 400, Message: "model overloaded"})).
		on("easy one", text("easy answer"))
	d := New(Options{Parent: agent.Config{Client: r, Model: "m", Tools: reg}})

	res, _ := d.Run(context.Background(), call(`{"goal":"audit the API"}`))
	if !res.IsError {
		t.Fatalf("a failed single child must be an error result:\n%s", res.Content)
	}
	for _, want := range []string{"status: failed", "exit: provider_error", "api calls: 2", "model overloaded",
		"last tool results (1 of its 1 tool calls)", "read_file: partial finding: 42 files use the old API"} {
		if !strings.Contains(res.Content, want) {
			t.Errorf("result lacks %q:\n%s", want, res.Content)
		}
	}

	// In a batch the failure is one line among others, and the batch is
	// not an error while a task completed.
	r.on("audit the API", callTool("c2", "read_file", `{}`), fail(&llm.ProviderError{Kind: llm.ErrBadRequest, StatusCode: 400, Message: "model overloaded"}))
	res, _ = d.Run(context.Background(), call(`{"tasks":[{"goal":"audit the API"},{"goal":"easy one"}]}`))
	if res.IsError || !strings.HasPrefix(res.Content, "delegate_task: 2 tasks: 1 failed, 1 completed.") || !strings.Contains(res.Content, "easy answer") {
		t.Fatalf("batch:\n%s", res.Content)
	}
}

func TestChildTimingOutIsReportedAsTimedOut(t *testing.T) {
	// The bubble's clock moves only when everything waits: the child
	// hangs in its model call, so the 5-minute timeout passes at once.
	synctest.Test(t, func(t *testing.T) {
		entered := make(chan string, 1)
		reg := tool.NewRegistry(named("read_file", "file", "halfway there"))
		r := newRouter(t).
			on("slow goal", callTool("c1", "read_file", `{}`), hang(entered, "slow")).
			on("quick goal", text("quick answer"))
		d := New(Options{Parent: agent.Config{Client: r, Model: "m", Tools: reg}, Timeout: 5 * time.Minute})
		start := time.Now()
		res, _ := d.Run(context.Background(), call(`{"tasks":[{"goal":"slow goal"},{"goal":"quick goal"}]}`))
		if waited := time.Since(start); waited != 5*time.Minute {
			t.Fatalf("the batch ended after %s, want the 5m timeout", waited)
		}
		for _, want := range []string{"1 timed_out, 1 completed", "status: timed_out", "no final answer within 5m0s",
			"read_file: halfway there", "quick answer"} {
			if !strings.Contains(res.Content, want) {
				t.Errorf("result lacks %q:\n%s", want, res.Content)
			}
		}
	})
}

func TestParentInterruptStopsChildrenAndSaysSo(t *testing.T) {
	entered := make(chan string, 3)
	r := newRouter(t).
		on("first goal", hang(entered, "first")).
		on("second goal", hang(entered, "second")).
		on("third goal", text("never asked"))
	d := New(Options{Parent: agent.Config{Client: r, Model: "m"}, MaxConcurrentChildren: 2})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan tool.Result, 1)
	go func() {
		res, _ := d.Run(ctx, call(`{"tasks":[{"goal":"first goal"},{"goal":"second goal"},{"goal":"third goal"}]}`))
		done <- res
	}()
	<-entered
	<-entered
	cancel()
	res := <-done
	c := res.Content
	if !strings.HasPrefix(c, "delegate_task: 3 tasks: 2 interrupted, 1 not_started.") {
		t.Fatalf("summary:\n%s", c)
	}
	for _, want := range []string{"=== Task 1: first goal\nstatus: interrupted", "=== Task 2: second goal\nstatus: interrupted",
		"=== Task 3: third goal\nstatus: not_started", "interrupted before this task started"} {
		if !strings.Contains(c, want) {
			t.Errorf("result lacks %q:\n%s", want, c)
		}
	}
	if n := len(r.requests("third goal")); n != 0 {
		t.Fatalf("third child made %d model calls after the interrupt", n)
	}
}

func TestDepthLimit(t *testing.T) {
	t.Run("a call at the limit is refused", func(t *testing.T) {
		r := newRouter(t)
		d := New(Options{Parent: agent.Config{Client: r, Model: "m", Depth: 1}, MaxSpawnDepth: 1})
		res, _ := d.Run(context.Background(), call(`{"goal":"anything"}`))
		if !res.IsError || !strings.Contains(res.Content, "depth 1 and delegation.max_spawn_depth is 1") {
			t.Fatalf("result: %+v", res)
		}
		if len(r.requests("")) != 0 {
			t.Fatal("a child was started")
		}
		if d.Spec().Check() == nil {
			t.Fatal("offered at the depth limit")
		}
		below := New(Options{Parent: agent.Config{Client: r, Model: "m", Depth: 0}, MaxSpawnDepth: 1})
		if err := below.Spec().Check(); err != nil {
			t.Fatalf("not offered below the depth limit: %v", err)
		}
	})
	t.Run("depth 2 allows grandchildren, which cannot delegate", func(t *testing.T) {
		ev := &events{}
		r := newRouter(t).
			on("outer goal", callTool("c1", Name, `{"goal":"inner goal"}`), text("outer done")).
			on("inner goal", text("inner done"))
		d := New(Options{Parent: agent.Config{Client: r, Model: "m", Tools: tool.NewRegistry(named("read_file", "file", ""))}, MaxSpawnDepth: 2, Observer: ev.observe})
		res, _ := d.Run(context.Background(), call(`{"goal":"outer goal"}`))
		if res.IsError || !strings.Contains(res.Content, "outer done") {
			t.Fatalf("result: %s", res.Content)
		}
		if got := toolNames(r.requests("outer goal")[0]); !slices.Equal(got, []string{Name, "read_file"}) {
			t.Fatalf("child tools = %v", got)
		}
		if got := toolNames(r.requests("inner goal")[0]); !slices.Equal(got, []string{"read_file"}) {
			t.Fatalf("grandchild tools = %v", got)
		}
		// The child read its grandchild's report.
		last := r.requests("outer goal")[1].Messages
		if tr := last[len(last)-1]; tr.Role != llm.RoleTool || !strings.Contains(tr.Content, "inner done") {
			t.Fatalf("child's tool result: %+v", tr)
		}
		seen := false
		for _, e := range ev.all() {
			if e.AgentID == "/1/1" && e.Depth == 2 {
				seen = true
			}
		}
		if !seen {
			t.Fatal("no event from the grandchild /1/1 at depth 2")
		}
	})
}

func TestDangerousCommandInChildIsDenied(t *testing.T) {
	denyRm := tool.ApproverFunc(func(_ context.Context, req tool.ApprovalRequest) error {
		if strings.Contains(req.Command, "rm -rf") {
			return errors.New("denied: recursive delete needs approval and nobody can give it")
		}
		return nil
	})
	tests := []struct {
		name     string
		approver tool.Approver
		wantRan  []string
		wantText string
	}{
		{"no policy configured: every command refused", nil, nil, "subagents cannot ask for approval"},
		{"the caller's fail-closed policy", denyRm, []string{"ls"}, "recursive delete needs approval"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sh := &shell{}
			r := newRouter(t).on("clean up",
				callTool("c1", "terminal", `{"command":"rm -rf /srv/data"}`),
				callTool("c2", "terminal", `{"command":"ls"}`),
				text("could not delete"))
			d := New(Options{Parent: agent.Config{Client: r, Model: "m", Tools: tool.NewRegistry(sh)}, ChildApprover: tc.approver})
			res, _ := d.Run(context.Background(), call(`{"goal":"clean up"}`))
			if !strings.Contains(res.Content, "could not delete") {
				t.Fatalf("result: %s", res.Content)
			}
			if got := sh.commands(); !slices.Equal(got, tc.wantRan) {
				t.Fatalf("commands run = %v, want %v", got, tc.wantRan)
			}
			reqs := r.requests("clean up")
			denied := reqs[1].Messages[len(reqs[1].Messages)-1]
			if denied.Role != llm.RoleTool || !strings.Contains(denied.Content, "Command not run") || !strings.Contains(denied.Content, tc.wantText) {
				t.Fatalf("child read: %+v", denied)
			}
		})
	}
}

func TestChildBudgetIsItsOwn(t *testing.T) {
	loop := callTool("c", "read_file", `{}`)
	r := newRouter(t).on("endless goal", loop, loop, loop, text("summary of what I found"))
	d := New(Options{Parent: agent.Config{Client: r, Model: "m", Tools: tool.NewRegistry(named("read_file", "file", "more"))}, MaxIterations: 3})
	res, _ := d.Run(context.Background(), call(`{"goal":"endless goal"}`))
	for _, want := range []string{"status: incomplete", "exit: max_iterations", "api calls: 4", "summary of what I found"} {
		if !strings.Contains(res.Content, want) {
			t.Errorf("result lacks %q:\n%s", want, res.Content)
		}
	}
	// The summary call is made without tools.
	if reqs := r.requests("endless goal"); len(reqs) != 4 || len(reqs[3].Tools) != 0 {
		t.Fatalf("requests: %d, last offers %d tools", len(reqs), len(reqs[len(reqs)-1].Tools))
	}
}

func TestBadArgumentsStartNothing(t *testing.T) {
	for _, tc := range []struct{ args, want string }{
		{`{}`, "give a goal"},
		{`{"goal":"  "}`, "give a goal"},
		{`{"goal":"a","tasks":[{"goal":"b"}]}`, "not both"},
		{`{"tasks":[{"goal":"b"},{"context":"c"}]}`, "tasks[1] has no goal"},
	} {
		r := newRouter(t)
		res, _ := New(Options{Parent: agent.Config{Client: r, Model: "m"}}).Run(context.Background(), call(tc.args))
		if !res.IsError || !strings.Contains(res.Content, tc.want) {
			t.Errorf("%s: %+v", tc.args, res)
		}
		if len(r.requests("")) != 0 {
			t.Errorf("%s: a child was started", tc.args)
		}
	}
}

// TestDelegationThroughTheParentAgent runs delegate_task as an agent-level
// tool of a real parent agent: the child's session is recorded under the
// parent's, the child's events reach the parent's observer one level
// deeper, and the parent reads the child's report.
func TestDelegationThroughTheParentAgent(t *testing.T) {
	st := &store{}
	ev := &events{}
	r := newRouter(t).
		on("You are the parent.", callTool("d1", Name, `{"goal":"count the files","context":"the repo is at /src"}`), text("there are 3 files")).
		on("count the files", text("3 files"))
	n := 0
	d := New(Options{Parent: agent.Config{Client: r, Model: "m", Store: st}, Observer: ev.observe, Workdir: "/src", NewSessionID: func() string { n++; return fmt.Sprintf("child-session-%d", n) }})
	parent := agent.New(agent.Config{Client: r, Model: "m", AgentTools: []tool.Tool{d}, Store: st, Observer: ev.observe,
		Session: agent.SessionMeta{ID: "parent-session", Source: "cli"}})
	res, err := parent.Run(context.Background(), agent.Input{Message: "how many files?", SystemMessage: "You are the parent."})
	if err != nil || !res.Completed || res.FinalResponse != "there are 3 files" {
		t.Fatalf("parent: %+v %v", res, err)
	}

	want := []agent.SessionMeta{{ID: "parent-session", Source: "cli", Model: "m"}, {ID: "child-session-1", Source: "subagent", ParentID: "parent-session", Model: "m"}}
	if !slices.Equal(st.sessions, want) {
		t.Fatalf("sessions = %+v", st.sessions)
	}
	if msgs := st.msgs["child-session-1"]; len(msgs) != 2 || msgs[0].Content != "count the files" || msgs[1].Content != "3 files" {
		t.Fatalf("child transcript = %+v", msgs)
	}

	reqs := r.requests("You are the parent.")
	tr := reqs[1].Messages[len(reqs[1].Messages)-1]
	if tr.Role != llm.RoleTool || !strings.HasPrefix(tr.Content, "[subagent status: completed") || !strings.HasSuffix(tr.Content, "\n3 files") {
		t.Fatalf("parent read: %q", tr.Content)
	}
	sys := r.requests("count the files")[0].Messages[0].Content
	for _, want := range []string{"YOUR TASK:\ncount the files", "CONTEXT:\nthe repo is at /src", "WORKSPACE:\n/src"} {
		if !strings.Contains(sys, want) {
			t.Errorf("child system prompt lacks %q:\n%s", want, sys)
		}
	}

	var childAssistant, parentAssistant, started bool
	for _, e := range ev.all() {
		switch {
		case e.Kind == agent.EventAssistant && e.AgentID == "/1" && e.Depth == 1 && e.Message.Content == "3 files":
			childAssistant = true
		case e.Kind == agent.EventAssistant && e.AgentID == "" && e.Depth == 0:
			parentAssistant = true
		case e.Kind == agent.EventStatus && e.AgentID == "/1" && strings.Contains(e.Text, "started: count the files"):
			started = true
		}
	}
	if !childAssistant || !parentAssistant || !started {
		t.Fatalf("events: child answer %v, parent answer %v, start status %v", childAssistant, parentAssistant, started)
	}
}

func TestCustomChildBuilderGetsTheSpec(t *testing.T) {
	r := newRouter(t).on("spec goal", text("ok"))
	var got ChildSpec
	o := Options{Parent: agent.Config{Model: "m", Store: &store{}}, NewSessionID: func() string { return "s-1" }}
	o.NewChild = func(_ context.Context, s ChildSpec) (*agent.Agent, error) {
		got = s
		cfg := o.ChildConfig(s)
		cfg.Client = r
		return agent.New(cfg), nil
	}
	res, _ := New(o).Run(context.Background(), call(`{"goal":"spec goal","context":"ctx"}`))
	if res.IsError {
		t.Fatal(res.Content)
	}
	if got.AgentID != "/1" || got.Depth != 1 || got.MaxIterations != DefaultMaxIterations || got.SessionID != "s-1" ||
		got.ParentSessionID != "parent-session" || got.TaskID == "" || got.TaskID == "parent-task" || got.Approver == nil || len(got.AgentTools) != 0 {
		t.Fatalf("spec = %+v", got)
	}
}

// A child that finished is reported completed even when the stop signal
// arrives just after its answer (upstream #93701: finished work reported
// as a timeout).
func TestChildThatFinishedStaysCompletedWhenStoppedJustAfter(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r := newRouter(t).on("finish goal", text("the artifact is at /out/report.md"))
	stopOnAnswer := func(e agent.Event) {
		if e.Kind == agent.EventAssistant && e.Depth == 1 {
			cancel()
		}
	}
	d := New(Options{Parent: agent.Config{Client: r, Model: "m"}, Observer: stopOnAnswer})
	res, _ := d.Run(ctx, call(`{"goal":"finish goal"}`))
	if ctx.Err() == nil {
		t.Fatal("the observer did not stop the parent")
	}
	if res.IsError || !strings.HasPrefix(res.Content, "[subagent status: completed") || !strings.Contains(res.Content, "/out/report.md") {
		t.Fatalf("result: %s", res.Content)
	}
}

func TestChildThatCannotBeBuiltIsReportedFailed(t *testing.T) {
	d := New(Options{Parent: agent.Config{Model: "m"}, NewChild: func(context.Context, ChildSpec) (*agent.Agent, error) {
		return nil, errors.New("no credentials for the child model")
	}})
	res, _ := d.Run(context.Background(), call(`{"tasks":[{"goal":"a"},{"goal":"b"}]}`))
	if !res.IsError || !strings.HasPrefix(res.Content, "delegate_task: 2 tasks: 2 failed.") ||
		strings.Count(res.Content, "starting the subagent: no credentials for the child model") != 2 {
		t.Fatalf("result:\n%s", res.Content)
	}
}
