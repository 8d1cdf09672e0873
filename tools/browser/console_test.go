package browser

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/tool"
	"github.com/hermes-go/hermes/tool/approval"
)

// executor runs b's tools through the real pipeline, approvals included.
func executor(b *Browser, ask func(context.Context, approval.Prompt) (approval.Choice, error)) *tool.Executor {
	reg := tool.NewRegistry(b.Tools()...)
	return &tool.Executor{Resolve: reg.Get, Names: reg.Names, Approver: approval.New(approval.Options{Ask: ask})}
}

func run(t *testing.T, e *tool.Executor, name string, args any) tool.Result {
	t.Helper()
	raw, _ := json.Marshal(args)
	return e.Execute(context.Background(), []tool.Call{{ID: "c1", Name: name, Args: raw, SessionID: "s"}})[0].Result
}

// browser_console reads the console freely, but evaluating an expression
// asks the user first, like a dangerous command: denied, it does not run.
func TestConsoleEvaluationAsksFirst(t *testing.T) {
	srv := site(t, map[string]string{"/": `<title>Console</title><h1 id="h">Before</h1><script>console.warn("low stock"); undefinedCall();</script>`})
	b := newTestBrowser(t, Options{})
	var asked []approval.Prompt
	answer := approval.Deny
	e := executor(b, func(ctx context.Context, p approval.Prompt) (approval.Choice, error) {
		asked = append(asked, p)
		return answer, nil
	})
	mustOK(t, run(t, e, "browser_navigate", map[string]any{"url": srv.URL}))
	logs := mustOK(t, run(t, e, "browser_console", nil))
	mustContain(t, logs, "console.warning: low stock", "page error: ReferenceError: undefinedCall is not defined")
	if len(asked) != 0 {
		t.Fatal("reading the console asked for approval")
	}

	const expr = `document.getElementById("h").textContent = "After"; 6 * 7`
	denied := run(t, e, "browser_console", map[string]any{"expression": expr})
	if !denied.IsError || !strings.Contains(denied.Content, "DENIED by the user") || len(asked) != 1 || asked[0].Command != expr {
		t.Fatalf("evaluation was not put to the user: %+v\n%s", asked, denied.Content)
	}
	mustContain(t, mustOK(t, run(t, e, "browser_snapshot", nil)), `heading "Before"`)

	answer = approval.Once
	mustContain(t, mustOK(t, run(t, e, "browser_console", map[string]any{"expression": expr})), "Result: 42")
	mustContain(t, mustOK(t, run(t, e, "browser_snapshot", nil)), `heading "After"`)
}
