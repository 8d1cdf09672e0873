package agent

import (
	"context"
	"slices"
	"testing"

	"github.com/hermes-go/hermes/tool"
)

func defNames(t *testing.T, s *scripted, i int) []string {
	t.Helper()
	var out []string
	for _, d := range s.requests()[i].Tools {
		out = append(out, d.Name)
	}
	return out
}

// A tool registered while a turn runs (an MCP server that joined late)
// is offered from the next model call, and one removed is no longer.
func TestAToolThatJoinsTheRegistryIsOfferedFromTheNextCall(t *testing.T) {
	reg := tool.NewRegistry(echoTool())
	joiner := tool.Func{S: tool.Spec{Name: "joins"}, Fn: func(ctx context.Context, c tool.Call) (tool.Result, error) {
		reg.MustRegister(tool.Func{S: tool.Spec{Name: "late"}, Fn: func(context.Context, tool.Call) (tool.Result, error) { return tool.Text("late"), nil }})
		reg.Unregister("echo")
		return tool.Text("ok"), nil
	}}
	reg.MustRegister(joiner)
	waited := 0
	s := script(t).add(calls(call("c1", "joins", `{}`)), calls(call("c2", "late", `{}`)), text("done"))
	a := New(Config{Client: s, Model: "m", Tools: reg, ToolsReady: func(context.Context) { waited++ }})
	res, err := a.Run(context.Background(), Input{Message: "go"})
	if err != nil || !res.Completed {
		t.Fatalf("res %+v err %v", res, err)
	}
	if got := defNames(t, s, 0); !slices.Equal(got, []string{"echo", "joins"}) {
		t.Fatalf("first call offered %v", got)
	}
	if got := defNames(t, s, 1); !slices.Equal(got, []string{"joins", "late"}) {
		t.Fatalf("second call offered %v", got)
	}
	if res.Messages[len(res.Messages)-2].Content != "late" {
		t.Fatalf("the late tool's result: %+v", res.Messages)
	}
	if waited != 1 {
		t.Fatalf("ToolsReady ran %d times in one turn", waited)
	}
}
