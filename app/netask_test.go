package app_test

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/hermes-go/hermes/agent"
	"github.com/hermes-go/hermes/app"
	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
	"github.com/hermes-go/hermes/sandbox"
	"github.com/hermes-go/hermes/tool/approval"
)

// fetchLocalhost serves a page on loopback for the test and returns the
// terminal call's arguments that fetch it by the name localhost, which
// the proxy dials on the host (--noproxy ” sends it through the proxy
// although NO_PROXY names loopback).
func fetchLocalhost(t *testing.T) []byte {
	t.Helper()
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl not installed")
	}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "reached-localhost") }))
	t.Cleanup(ts.Close)
	_, port, _ := net.SplitHostPort(ts.Listener.Addr().String())
	call, _ := json.Marshal(map[string]string{"command": "curl -sS --noproxy '' http://localhost:" + port + "/"})
	return call
}

// A domain outside sandbox.network.allow is asked about like a dangerous
// command; "always" lets the command through and saves the domain to
// sandbox.network.allow, so that the next runtime does not ask.
func TestANewDomainIsAskedAboutAndAlwaysIsSaved(t *testing.T) {
	call := fetchLocalhost(t)

	srv := llmtest.NewServer(t)
	cfg := newConfig(t, srv.URL())
	os.WriteFile(filepath.Join(cfg.Home, "config.yaml"), []byte("# mine\nsandbox:\n  network: allowlist  # registries\n"), 0o600)
	var mu sync.Mutex
	var prompts []approval.Prompt
	approve := func(_ context.Context, p approval.Prompt) (approval.Choice, error) {
		mu.Lock()
		defer mu.Unlock()
		prompts = append(prompts, p)
		return approval.Always, nil
	}
	for run := range 2 {
		srv.Enqueue(llmtest.Reply{ToolCalls: []llm.ToolCall{{ID: "c", Name: "terminal", Arguments: string(call)}}}, llmtest.Reply{Text: "done"})
		rt := newRuntime(t, cfg, app.Options{Workdir: t.TempDir()})
		c := open(t, rt, app.ConversationOptions{Approve: approve})
		if e := c.SandboxStatus(); e.Network != sandbox.NetworkAllowlist {
			t.Skipf("no allowlist here: %s", e)
		}
		if _, err := c.Run(context.Background(), agent.Input{Message: "fetch"}); err != nil {
			t.Fatal(err)
		}
		reqs := srv.Requests()
		if res := reqs[len(reqs)-1].Messages(); !strings.Contains(res[len(res)-1].Content, "reached-localhost") {
			t.Fatalf("run %d: %q", run, res[len(res)-1].Content)
		}
		if run == 0 {
			// The next runtime reads the saved setting.
			c, err := config.Load(cfg.Home, func(string) string { return "" })
			if err != nil || len(c.Sandbox.Network.Allow) != 1 || c.Sandbox.Network.Allow[0] != "localhost" {
				t.Fatalf("saved: %+v %v", c.Sandbox.Network, err)
			}
			cfg.Sandbox = c.Sandbox
		}
	}
	if len(prompts) != 1 || prompts[0].Tool != "network" || prompts[0].Command != "connect to localhost" {
		t.Fatalf("prompts %+v, want one about localhost", prompts)
	}
	b, _ := os.ReadFile(filepath.Join(cfg.Home, "config.yaml"))
	if want := "# mine\nsandbox:\n  network:  # registries\n    mode: allowlist\n    allow:\n      - localhost\n"; string(b) != want {
		t.Errorf("config.yaml:\n%s\nwant\n%s", b, want)
	}
}

// Conversations sharing a workspace each ask their own person: the
// question about a command's domain goes to the conversation whose
// session ran it, never to another one working in the same directory.
func TestANetworkQuestionGoesToTheConversationThatRanTheCommand(t *testing.T) {
	call := fetchLocalhost(t)
	srv := llmtest.NewServer(t)
	cfg := newConfig(t, srv.URL())
	cfg.Sandbox.Network = config.Network{Mode: "allowlist"}
	rt := newRuntime(t, cfg, app.Options{Workdir: t.TempDir()})
	var mu sync.Mutex
	asked := map[string]int{}
	asker := func(name string, choice approval.Choice) func(context.Context, approval.Prompt) (approval.Choice, error) {
		return func(_ context.Context, p approval.Prompt) (approval.Choice, error) {
			mu.Lock()
			defer mu.Unlock()
			asked[name]++
			return choice, nil
		}
	}
	a := open(t, rt, app.ConversationOptions{Approve: asker("a", approval.Deny)})
	b := open(t, rt, app.ConversationOptions{Approve: asker("b", approval.Once)})
	if a.Workspace() != b.Workspace() {
		t.Fatal("the two conversations do not share the runtime's workspace")
	}
	if e := b.SandboxStatus(); e.Network != sandbox.NetworkAllowlist {
		t.Skipf("no allowlist here: %s", e)
	}
	srv.Enqueue(llmtest.Reply{ToolCalls: []llm.ToolCall{{ID: "c", Name: "terminal", Arguments: string(call)}}}, llmtest.Reply{Text: "done"})
	if _, err := b.Run(context.Background(), agent.Input{Message: "fetch"}); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if res := reqs[len(reqs)-1].Messages(); !strings.Contains(res[len(res)-1].Content, "reached-localhost") {
		t.Fatalf("b's command was not let through by b's answer: %q", res[len(res)-1].Content)
	}
	if asked["a"] != 0 || asked["b"] != 1 {
		t.Fatalf("asked %v, want b once and a never", asked)
	}
	// Nobody attends the third: refused, nobody asked.
	c := open(t, rt, app.ConversationOptions{})
	srv.Enqueue(llmtest.Reply{ToolCalls: []llm.ToolCall{{ID: "c", Name: "terminal", Arguments: string(call)}}}, llmtest.Reply{Text: "done"})
	if _, err := c.Run(context.Background(), agent.Input{Message: "fetch"}); err != nil {
		t.Fatal(err)
	}
	reqs = srv.Requests()
	if res := reqs[len(reqs)-1].Messages(); strings.Contains(res[len(res)-1].Content, "reached-localhost") {
		t.Fatalf("an unattended conversation's command reached a domain outside the allowlist: %q", res[len(res)-1].Content)
	}
	if asked["a"] != 0 || asked["b"] != 1 {
		t.Fatalf("asked %v after an unattended command", asked)
	}
}
