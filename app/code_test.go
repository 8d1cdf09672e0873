package app_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/agent"
	"github.com/hermes-go/hermes/app"
	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
	"github.com/hermes-go/hermes/tool/approval"
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

// A dangerous command in a script asks the conversation's person, as the
// model's own call would, and is refused where nobody attends.
func TestADangerousCommandInAScriptAsksTheConversationsPerson(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	script := `from hermes_tools import terminal, ToolError
try:
    terminal(command="rm -rf junk")
    print("ran")
except ToolError as e:
    print("refused")
`
	args, _ := json.Marshal(map[string]string{"code": script})
	for _, attended := range []bool{true, false} {
		srv := llmtest.NewServer(t)
		srv.Enqueue(
			llmtest.Reply{ToolCalls: []llm.ToolCall{{ID: "code", Name: "execute_code", Arguments: string(args)}}},
			llmtest.Reply{Text: "done"},
		)
		work := t.TempDir()
		os.MkdirAll(filepath.Join(work, "junk"), 0o755)
		writeFile(t, filepath.Join(work, "junk", "file"), "x")
		rt := newRuntime(t, newConfig(t, srv.URL()), app.Options{Workdir: work})
		var asked []string
		o := app.ConversationOptions{Unattended: "nobody is here"}
		if attended {
			o = app.ConversationOptions{Approve: func(_ context.Context, p approval.Prompt) (approval.Choice, error) {
				asked = append(asked, p.Command)
				return approval.Once, nil
			}}
		}
		if _, err := open(t, rt, o).Run(context.Background(), agent.Input{Message: "go"}); err != nil {
			t.Fatal(err)
		}
		var out struct{ Stdout string }
		json.Unmarshal([]byte(toolResults(srv.Requests()[1])["code"]), &out)
		_, err := os.Stat(filepath.Join(work, "junk"))
		switch {
		case attended && (len(asked) != 1 || out.Stdout != "ran\n" || !os.IsNotExist(err)):
			t.Errorf("attended: asked %q, stdout %q, junk %v", asked, out.Stdout, err)
		case !attended && (out.Stdout != "refused\n" || err != nil):
			t.Errorf("unattended: stdout %q, junk %v", out.Stdout, err)
		}
	}
}
