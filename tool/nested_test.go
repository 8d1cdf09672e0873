package tool

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
)

// A tool running other tools through ExecutorFrom gets for each of them
// what a call of the model's gets: the pre hook, the approval of its
// command, the post hook and redaction.
func TestANestedCallPassesTheWholePipeline(t *testing.T) {
	var ran atomic.Bool
	var nested []string
	outer := fn("outer", Sequential, func(ctx context.Context, c Call) (Result, error) {
		e := ExecutorFrom(ctx)
		if e == nil {
			return Error("no executor in the call's context"), nil
		}
		for _, cmd := range []string{"ls", "rm -rf /", "blockme"} {
			args, _ := json.Marshal(map[string]string{"Command": cmd})
			o := e.Run(ctx, Call{ID: c.ID + "-1", Name: "sh", Args: args, TaskID: c.TaskID})
			nested = append(nested, string(o.Status)+":"+o.Result.Content)
		}
		return Text("done"), nil
	})
	r := NewRegistry(outer, cmdTool{&ran})
	e := &Executor{Resolve: r.Get, Names: r.Names}
	var seen []string
	e.Pre = []PreHook{func(ctx context.Context, c *Call) (string, error) {
		seen = append(seen, "pre:"+c.Name)
		if strings.Contains(string(c.Args), "blockme") {
			return "policy says no", nil
		}
		return "", nil
	}}
	e.Approver = ApproverFunc(func(ctx context.Context, req ApprovalRequest) error {
		seen = append(seen, "approve:"+req.Command+":"+req.TaskID)
		if strings.HasPrefix(req.Command, "rm") {
			return errors.New("denied by user")
		}
		return nil
	})
	e.Redact = func(s string) string { return strings.ReplaceAll(s, "ran", "r*n") }
	var observed []string
	e.OnStart = func(c Call) { observed = append(observed, "start:"+c.Name) }
	e.OnFinish = func(o Outcome) { observed = append(observed, "finish:"+o.Call.Name) }

	o := e.Execute(context.Background(), []Call{{ID: "c1", Name: "outer", TaskID: "t1"}})[0]
	if o.Status != StatusOK {
		t.Fatalf("outer: %+v", o)
	}
	want := []string{"ok:r*n", "blocked:Command not run: denied by user.", "blocked:Blocked: policy says no"}
	if strings.Join(nested, "|") != strings.Join(want, "|") {
		t.Errorf("nested outcomes %q, want %q", nested, want)
	}
	wantSeen := "pre:outer,pre:sh,approve:ls:t1,pre:sh,approve:rm -rf /:t1,pre:sh"
	if got := strings.Join(seen, ","); got != wantSeen {
		t.Errorf("pipeline saw %s, want %s", got, wantSeen)
	}
	if got := strings.Join(observed, ","); got != "start:outer,finish:outer" {
		t.Errorf("observers saw %s, want the outer call alone", got)
	}
	if ExecutorFrom(context.Background()) != nil {
		t.Error("an executor outside any call")
	}
}
