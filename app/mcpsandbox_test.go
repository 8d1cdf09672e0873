package app_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/agent"
	"github.com/hermes-go/hermes/app"
	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
	"github.com/hermes-go/hermes/mcp"
	"github.com/hermes-go/hermes/sandbox"
	"github.com/hermes-go/hermes/sandbox/sandboxtest"
)

func pidIn(t *testing.T, file string) string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil || len(b) == 0 {
		t.Fatalf("no pid in %s: %v", file, err)
	}
	return strings.TrimSpace(string(b))
}

// The sandboxed MCP servers of the runtime's directory, configured or
// brought by a session, are forked by the sandbox helper of its
// terminal: they share the mount namespace of the terminal's commands
// (a server with a helper of its own would have its own). They get the
// environment less its secrets, cannot write outside the workspace, and
// end with the runtime.
func TestMCPServersShareTheTerminalsSandboxHelper(t *testing.T) {
	outside, err := os.MkdirTemp("/var/tmp", "hermes-app-")
	if err != nil {
		t.Skipf("no directory outside /tmp: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(outside) })
	work := filepath.Join(outside, "work")
	os.MkdirAll(work, 0o755)
	secret := "ghp_" + strings.Repeat("aB3", 12)
	t.Setenv("GITHUB_TOKEN", secret)
	t.Setenv("HERMES_TEST_PLAIN", "plain")

	srv := llmtest.NewServer(t)
	cfg := newConfig(t, srv.URL())
	configured, brought := filepath.Join(work, "configured.pid"), filepath.Join(work, "brought.pid")
	cfg.MCPServers = map[string]config.MCPServer{"t": testMCP(t, map[string]string{"HERMES_MCPTEST_PIDFILE": configured})}
	victim := filepath.Join(outside, "victim.txt")
	srv.Enqueue(
		llmtest.Reply{ToolCalls: []llm.ToolCall{
			{ID: "ns", Name: "terminal", Arguments: `{"command":"readlink /proc/self/ns/mnt"}`},
			{ID: "secret", Name: "mcp__t__getenv", Arguments: `{"name":"GITHUB_TOKEN"}`},
			{ID: "plain", Name: "mcp__t__getenv", Arguments: `{"name":"HERMES_TEST_PLAIN"}`},
			{ID: "out", Name: "mcp__t__write_file", Arguments: `{"path":"` + victim + `","text":"owned"}`},
		}},
		llmtest.Reply{Text: "done"},
	)
	rt := newRuntime(t, cfg, app.Options{Workdir: work})
	if e := rt.SandboxStatus(); e.Level != sandbox.Full {
		t.Skipf("this system cannot enforce the sandbox: %s", e)
	}
	set, err := rt.StartSessionMCP("", []mcp.Server{sessionServer(t, "s", "HERMES_MCPTEST_PIDFILE="+brought)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer set.Close()
	if late := set.Wait(context.Background()); late != nil {
		t.Fatalf("late %v: %v", late, set.Status())
	}
	res, err := open(t, rt, app.ConversationOptions{}).Run(context.Background(), agent.Input{Message: "go"})
	if err != nil || !res.Completed {
		t.Fatalf("res %+v err %v", res, err)
	}
	got := toolResults(srv.Requests()[1])

	terminalNS := regexp.MustCompile(`mnt:\[\d+\]`).FindString(got["ns"])
	if terminalNS == "" || terminalNS == sandboxtest.MountNamespace(t, strconv.Itoa(os.Getpid())) {
		t.Fatalf("the terminal's command ran in %q, not a sandbox's namespace", got["ns"])
	}
	for what, file := range map[string]string{"configured": configured, "brought": brought} {
		if ns := sandboxtest.MountNamespace(t, pidIn(t, file)); ns != terminalNS {
			t.Errorf("the %s server runs in %s, not in the terminal helper's %s", what, ns, terminalNS)
		}
	}
	if got["secret"] != "(unset)" || got["plain"] != "plain" {
		t.Errorf("the server's environment: GITHUB_TOKEN %q, HERMES_TEST_PLAIN %q", got["secret"], got["plain"])
	}
	if _, err := os.Stat(victim); !os.IsNotExist(err) {
		t.Errorf("the server wrote outside its workspace (%q): %v", got["out"], err)
	}

	pid := pidIn(t, configured)
	set.Close()
	if err := rt.Close(); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{pid, pidIn(t, brought)} {
		// Gone altogether: hermes reaped it.
		if _, err := os.Stat("/proc/" + p); err == nil {
			t.Errorf("server %s is still there after the runtime closed", p)
		}
	}
}

// A session's servers in another directory get a helper of their own,
// which they share, under that directory's sandbox.
func TestSessionMCPServersElsewhereShareAHelperOfTheirOwn(t *testing.T) {
	srv := llmtest.NewServer(t)
	rt := newRuntime(t, newConfig(t, srv.URL()), app.Options{})
	if e := rt.SandboxStatus(); e.Level != sandbox.Full {
		t.Skipf("this system cannot enforce the sandbox: %s", e)
	}
	work := t.TempDir()
	a, b := filepath.Join(work, "a.pid"), filepath.Join(work, "b.pid")
	set, err := rt.StartSessionMCP(work, []mcp.Server{
		sessionServer(t, "a", "HERMES_MCPTEST_PIDFILE="+a), sessionServer(t, "b", "HERMES_MCPTEST_PIDFILE="+b),
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer set.Close()
	if late := set.Wait(context.Background()); late != nil {
		t.Fatalf("late %v: %v", late, set.Status())
	}
	nsA, nsB := sandboxtest.MountNamespace(t, pidIn(t, a)), sandboxtest.MountNamespace(t, pidIn(t, b))
	if nsA != nsB || nsA == sandboxtest.MountNamespace(t, strconv.Itoa(os.Getpid())) {
		t.Fatalf("the servers run in %s and %s: not one sandbox helper's", nsA, nsB)
	}
	set.Close()
	for _, f := range []string{a, b} {
		if _, err := os.Stat("/proc/" + pidIn(t, f)); err == nil {
			t.Errorf("server %s is still there after Close", pidIn(t, f))
		}
	}
}
