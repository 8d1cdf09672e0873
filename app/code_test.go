package app_test

import (
	"context"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/agent"
	"github.com/hermes-go/hermes/app"
	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
)

// An MCP server's tools are functions of hermes_tools too, their
// signatures in execute_code's description, and a script's call to one
// passes the hooks as the model's would.
func TestAScriptCallsMCPTools(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	script := `from hermes_tools import mcp__t__echo, mcp__t__add_numbers, ToolError
print(mcp__t__echo(message="hi"))
try:
    mcp__t__add_numbers(a=1, b=2)
except ToolError as e:
    print("blocked:", "no sums today" in str(e))
`
	args, _ := json.Marshal(map[string]string{"code": script})
	srv := llmtest.NewServer(t)
	srv.Enqueue(
		llmtest.Reply{ToolCalls: []llm.ToolCall{{ID: "code", Name: "execute_code", Arguments: string(args)}}},
		llmtest.Reply{Text: "done"},
	)
	cfg := newConfig(t, srv.URL())
	cfg.MCPServers = map[string]config.MCPServer{"t": testMCP(t, nil)}
	cfg.Hooks.PreToolCall = []config.ShellHook{{Matcher: "mcp__t__add.*", Command: "echo no sums today >&2; exit 2"}}
	rt := newRuntime(t, cfg, app.Options{})
	res, err := open(t, rt, app.ConversationOptions{}).Run(context.Background(), agent.Input{Message: "go"})
	if err != nil || !res.Completed {
		t.Fatalf("res %+v err %v", res, err)
	}
	var desc string
	for _, d := range srv.Requests()[0].Tools() {
		if d.Name == "execute_code" {
			desc = d.Description
		}
	}
	if !strings.Contains(desc, "mcp__t__echo(message: str") {
		t.Errorf("execute_code's description lacks the MCP tool:\n%s", desc)
	}
	var out struct{ Stdout, Stderr string }
	got := toolResults(srv.Requests()[1])["code"]
	if err := json.Unmarshal([]byte(got), &out); err != nil {
		t.Fatalf("result %q", got)
	}
	if out.Stdout != "Echo: hi\nblocked: True\n" {
		t.Errorf("stdout %q stderr %s", out.Stdout, out.Stderr)
	}
}
