package app_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/agent"
	"github.com/hermes-go/hermes/app"
	"github.com/hermes-go/hermes/llm/llmtest"
	"github.com/hermes-go/hermes/tool"
)

// CallTool runs one call as the agent would: in the workspace, with the
// dangerous-command check (nobody to approve: denied) and the
// unknown-tool answer the model reads.
func TestCallToolRunsOneCallAsTheAgentWould(t *testing.T) {
	cfg := newConfig(t, "http://127.0.0.1:9/v1")
	cfg.Toolsets = []string{"terminal", "todo"}
	wd := t.TempDir()
	rt := newRuntime(t, cfg, app.Options{Workdir: wd})
	c := open(t, rt, app.ConversationOptions{})
	ctx := context.Background()
	call := func(name, args string) tool.Outcome {
		return c.CallTool(ctx, tool.Call{ID: "c", Name: name, Args: json.RawMessage(args), TaskID: "t"})
	}
	if o := call("terminal", `{"command":"echo hi > f.txt"}`); o.Result.IsError {
		t.Fatalf("echo: %+v", o)
	}
	if b, err := os.ReadFile(filepath.Join(wd, "f.txt")); err != nil || string(b) != "hi\n" {
		t.Errorf("the command did not run in the workspace: %q, %v", b, err)
	}
	if o := call("terminal", `{"command":"rm -rf build"}`); !o.Result.IsError || !strings.Contains(o.Result.Content, "DENIED") {
		t.Errorf("dangerous command: %+v", o)
	}
	if o := call("todo", `{"todos":[{"id":"1","content":"x","status":"pending"}]}`); o.Result.IsError {
		t.Errorf("agent-level tool: %+v", o)
	}
	if o := call("read_file", `{"path":"f.txt"}`); !o.Result.IsError || !strings.Contains(o.Result.Content, "terminal") {
		t.Errorf("a tool of another toolset: %+v", o)
	}
	specs := c.ToolSpecs()
	if len(specs) == 0 || specs[0].Name != "todo" {
		t.Errorf("tool specs %v: agent-level tools come first", specs)
	}
}

// A replay agent has the conversation's settings and none of its
// effects: no session is stored.
func TestReplayAgentKeepsNothing(t *testing.T) {
	cfg := newConfig(t, "http://127.0.0.1:9/v1")
	rt := newRuntime(t, cfg, app.Options{})
	c := open(t, rt, app.ConversationOptions{})
	model := llmtest.NewClient(t)
	model.Enqueue(llmtest.Reply{Text: "hello"})
	a := c.ReplayAgent(model, nil)
	res, err := a.Run(context.Background(), agent.Input{Message: "hi"})
	if err != nil || !res.Completed || res.FinalResponse != "hello" {
		t.Fatalf("%+v, %v", res, err)
	}
	if got := model.Requests()[0].Model; got != "primary-model" {
		t.Errorf("model %q", got)
	}
	if n, _ := rt.Store().Messages(context.Background(), res.SessionID); len(n) != 0 {
		t.Errorf("the replay stored %d messages", len(n))
	}
}
