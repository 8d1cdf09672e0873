package tool

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func newExec(tools ...Tool) *Executor {
	r := NewRegistry(tools...)
	return &Executor{Resolve: r.Get, Names: r.Names}
}

func fn(name string, class Class, f func(ctx context.Context, c Call) (Result, error)) Tool {
	return Func{S: Spec{Name: name, Class: class}, Fn: f}
}

func TestParallelResultsKeepCallOrder(t *testing.T) {
	// Call i may finish only after call i+1 has finished: completion order
	// is the reverse of call order.
	const n = 5
	gates := make([]chan struct{}, n+1)
	for i := range gates {
		gates[i] = make(chan struct{})
	}
	close(gates[n])
	var finished []string
	var mu sync.Mutex
	slow := fn("slow", Parallel, func(ctx context.Context, c Call) (Result, error) {
		var a struct{ I int }
		json.Unmarshal(c.Args, &a)
		<-gates[a.I+1]
		mu.Lock()
		finished = append(finished, c.ID)
		mu.Unlock()
		close(gates[a.I])
		return Text("result " + c.ID), nil
	})
	e := newExec(slow)
	var calls []Call
	for i := 0; i < n; i++ {
		calls = append(calls, Call{ID: string(rune('a' + i)), Name: "slow", Args: json.RawMessage(`{"I":` + string(rune('0'+i)) + `}`)})
	}
	out := e.Execute(context.Background(), calls)
	if finished[0] != "e" || finished[n-1] != "a" {
		t.Fatalf("calls did not run concurrently in reverse: %v", finished)
	}
	for i, o := range out {
		if o.Call.ID != calls[i].ID || o.Result.Content != "result "+calls[i].ID {
			t.Fatalf("outcome %d = %+v, want call %s", i, o, calls[i].ID)
		}
	}
}

func TestInteractiveToolNeverRunsBesideAnother(t *testing.T) {
	var running, maxSeen atomic.Int32
	track := func(ctx context.Context, c Call) (Result, error) {
		n := running.Add(1)
		for {
			m := maxSeen.Load()
			if n <= m || maxSeen.CompareAndSwap(m, n) {
				break
			}
		}
		defer running.Add(-1)
		if c.Name == "clarify" && n != 1 {
			return Error("clarify ran beside another call"), nil
		}
		return Text("ok"), nil
	}
	e := newExec(fn("read", Parallel, track), fn("clarify", Interactive, track))
	calls := []Call{{ID: "1", Name: "read"}, {ID: "2", Name: "read"}, {ID: "3", Name: "clarify"}, {ID: "4", Name: "read"}}
	for _, o := range e.Execute(context.Background(), calls) {
		if o.Result.IsError {
			t.Fatal(o.Result.Content)
		}
	}
	segs := plan([]*prepared{e.prepare(calls[0]), e.prepare(calls[1]), e.prepare(calls[2]), e.prepare(calls[3])})
	if len(segs) != 3 || !segs[0].parallel || segs[1].parallel || segs[1].idx[0] != 2 {
		t.Fatalf("plan = %+v, want [read read] [clarify] [read]", segs)
	}
}

func TestPathScopedWritersToSamePathDoNotOverlap(t *testing.T) {
	paths := func(args json.RawMessage) ([]string, bool) {
		var a struct {
			Path  string
			Write bool
		}
		json.Unmarshal(args, &a)
		return []string{a.Path}, a.Write
	}
	tl := Func{S: Spec{Name: "file", Class: PathScoped, Paths: paths}, Fn: func(ctx context.Context, c Call) (Result, error) { return Text("ok"), nil }}
	e := newExec(tl)
	mk := func(id, args string) *prepared {
		return e.prepare(Call{ID: id, Name: "file", Args: json.RawMessage(args)})
	}
	cases := []struct {
		name  string
		preps []*prepared
		segs  int
	}{
		{"two readers share a run", []*prepared{mk("1", `{"Path":"/a"}`), mk("2", `{"Path":"/a"}`)}, 1},
		{"writer after reader of same path splits", []*prepared{mk("1", `{"Path":"/a"}`), mk("2", `{"Path":"/a","Write":true}`)}, 2},
		{"writer of a dir and reader inside it split", []*prepared{mk("1", `{"Path":"/a","Write":true}`), mk("2", `{"Path":"/a/b"}`)}, 2},
		{"writers of different paths share a run", []*prepared{mk("1", `{"Path":"/a","Write":true}`), mk("2", `{"Path":"/b","Write":true}`)}, 1},
	}
	for _, c := range cases {
		if got := len(plan(c.preps)); got != c.segs {
			t.Errorf("%s: %d segments, want %d", c.name, got, c.segs)
		}
	}
}

func TestPoolBoundsConcurrencyAndResizesWhileRunning(t *testing.T) {
	var running, maxSeen atomic.Int32
	release := make(chan struct{})
	started := make(chan struct{}, 10)
	tl := fn("t", Parallel, func(ctx context.Context, c Call) (Result, error) {
		n := running.Add(1)
		for {
			m := maxSeen.Load()
			if n <= m || maxSeen.CompareAndSwap(m, n) {
				break
			}
		}
		started <- struct{}{}
		<-release
		running.Add(-1)
		return Text("ok"), nil
	})
	e := newExec(tl)
	e.SetPoolSize(2)
	calls := make([]Call, 6)
	for i := range calls {
		calls[i] = Call{ID: string(rune('a' + i)), Name: "t"}
	}
	done := make(chan []Outcome)
	go func() { done <- e.Execute(context.Background(), calls) }()
	<-started
	<-started
	if got := running.Load(); got != 2 {
		t.Fatalf("running = %d with pool 2", got)
	}
	e.SetPoolSize(4) // grow while the batch runs
	<-started
	<-started
	close(release)
	out := <-done
	if len(out) != 6 || maxSeen.Load() != 4 {
		t.Fatalf("max concurrent = %d, want 4 after resize", maxSeen.Load())
	}
}

func TestFailuresBecomeResults(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"},"s":{"type":"string"}},"required":["n"]}`)
	tools := []Tool{
		Func{S: Spec{Name: "typed", Parameters: schema}, Fn: func(ctx context.Context, c Call) (Result, error) { return Text("fine"), nil }},
		fn("boom", Sequential, func(ctx context.Context, c Call) (Result, error) { panic("kaboom") }),
		fn("fails", Sequential, func(ctx context.Context, c Call) (Result, error) { return Result{}, errors.New("disk on fire") }),
		Func{S: Spec{Name: "slow", Timeout: 20 * time.Millisecond}, Fn: func(ctx context.Context, c Call) (Result, error) {
			<-ctx.Done()
			return Result{}, ctx.Err()
		}},
	}
	e := newExec(tools...)
	cases := []struct {
		call   Call
		status Status
		want   []string
	}{
		{Call{Name: "nope"}, StatusError, []string{"Tool 'nope' does not exist", "Available tools: boom, fails, slow, typed"}},
		{Call{Name: "typed", Args: json.RawMessage(`{"n":`)}, StatusError, []string{"Invalid JSON arguments", "{}"}},
		{Call{Name: "typed", Args: json.RawMessage(`[1]`)}, StatusError, []string{"Invalid JSON arguments"}},
		{Call{Name: "typed", Args: json.RawMessage(`{"s":3}`)}, StatusError, []string{"do not match its schema", "/properties/s", `want "string"`}},
		{Call{Name: "typed", Args: json.RawMessage(`{"s":"x"}`)}, StatusError, []string{"do not match its schema", `missing properties: ["n"]`}},
		{Call{Name: "typed", Args: json.RawMessage(`{"n":1}`)}, StatusOK, []string{"fine"}},
		{Call{Name: "typed", Args: nil}, StatusError, []string{"missing properties"}},
		{Call{Name: "boom"}, StatusError, []string{"Tool execution failed: panic: kaboom"}},
		{Call{Name: "fails"}, StatusError, []string{"Tool execution failed: disk on fire"}},
		{Call{Name: "slow"}, StatusTimeout, []string{"Error executing tool 'slow': timed out after 20ms"}},
	}
	for _, c := range cases {
		o := e.Execute(context.Background(), []Call{c.call})[0]
		if o.Status != c.status {
			t.Errorf("%s %s: status %s, want %s (%s)", c.call.Name, c.call.Args, o.Status, c.status, o.Result.Content)
		}
		for _, w := range c.want {
			if !strings.Contains(o.Result.Content, w) {
				t.Errorf("%s %s: result %q lacks %q", c.call.Name, c.call.Args, o.Result.Content, w)
			}
		}
	}
}

func TestOversizedOutputIsCutAndSpilled(t *testing.T) {
	big := strings.Repeat("x", 250)
	e := newExec(fn("big", Sequential, func(ctx context.Context, c Call) (Result, error) { return Text(big), nil }))
	e.MaxResultChars = 100
	e.SpillDir = t.TempDir()
	o := e.Execute(context.Background(), []Call{{ID: "c1", Name: "big"}})[0]
	if !strings.HasPrefix(o.Result.Content, strings.Repeat("x", 100)+"\n\n[Output cut at 100 of 250 chars") {
		t.Fatalf("result = %q", o.Result.Content)
	}
	if !strings.Contains(o.Result.Content, o.SpillPath) || o.SpillPath == "" {
		t.Fatalf("result does not name the spill file: %q", o.Result.Content)
	}
	b, err := os.ReadFile(o.SpillPath)
	if err != nil || string(b) != big {
		t.Fatalf("spill file holds %d bytes (err %v), want the full output", len(b), err)
	}
}

type cmdTool struct{ ran *atomic.Bool }

func (c cmdTool) Spec() Spec { return Spec{Name: "sh", Class: Sequential} }
func (c cmdTool) Run(ctx context.Context, call Call) (Result, error) {
	c.ran.Store(true)
	return Text("ran"), nil
}
func (c cmdTool) Command(args json.RawMessage) (string, bool) {
	var a struct{ Command string }
	json.Unmarshal(args, &a)
	return a.Command, a.Command != ""
}

func TestPipelineOrderHooksApprovalRun(t *testing.T) {
	var ran atomic.Bool
	var trace []string
	e := newExec(cmdTool{&ran})
	e.Pre = []PreHook{func(ctx context.Context, c *Call) (string, error) {
		trace = append(trace, "pre")
		if strings.Contains(string(c.Args), "blockme") {
			return "policy says no", nil
		}
		return "", nil
	}}
	e.Approver = ApproverFunc(func(ctx context.Context, r ApprovalRequest) error {
		trace = append(trace, "approve:"+r.Command)
		if strings.HasPrefix(r.Command, "rm") {
			return errors.New("denied by user")
		}
		return nil
	})
	var post []Status
	e.Post = []PostHook{func(ctx context.Context, c Call, r *Result, st Status, d time.Duration) {
		trace = append(trace, "post")
		post = append(post, st)
	}}

	o := e.Execute(context.Background(), []Call{{Name: "sh", Args: json.RawMessage(`{"Command":"ls"}`)}})[0]
	if o.Status != StatusOK || strings.Join(trace, ",") != "pre,approve:ls,post" {
		t.Fatalf("trace %v status %s", trace, o.Status)
	}
	ran.Store(false)
	o = e.Execute(context.Background(), []Call{{Name: "sh", Args: json.RawMessage(`{"Command":"rm -rf x"}`)}})[0]
	if ran.Load() || o.Status != StatusBlocked || !strings.Contains(o.Result.Content, "denied by user") {
		t.Fatalf("denied command ran=%v status=%s %q", ran.Load(), o.Status, o.Result.Content)
	}
	o = e.Execute(context.Background(), []Call{{Name: "sh", Args: json.RawMessage(`{"Command":"blockme"}`)}})[0]
	if ran.Load() || o.Status != StatusBlocked || !strings.Contains(o.Result.Content, "policy says no") {
		t.Fatalf("blocked call ran=%v status=%s %q", ran.Load(), o.Status, o.Result.Content)
	}
	if len(post) != 3 || post[1] != StatusBlocked || post[2] != StatusBlocked {
		t.Fatalf("post hook statuses %v", post)
	}
}

func TestCancelledBatchReportsEveryCall(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	e := newExec(fn("stop", Sequential, func(c context.Context, call Call) (Result, error) {
		cancel()
		<-c.Done()
		return Result{}, c.Err()
	}), fn("after", Sequential, func(context.Context, Call) (Result, error) { return Text("should not run"), nil }))
	out := e.Execute(ctx, []Call{{ID: "1", Name: "stop"}, {ID: "2", Name: "after"}})
	if out[0].Status != StatusCancelled || out[1].Status != StatusCancelled || strings.Contains(out[1].Result.Content, "should not run") {
		t.Fatalf("outcomes %+v", out)
	}
}
