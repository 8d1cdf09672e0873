package e2e

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/testpeer"
	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
)

// mcpServeHome is a home whose model is srv, and a project directory.
func mcpServeHome(t *testing.T, srv *llmtest.Server) (base, home, work string) {
	t.Helper()
	base = outsideTmp(t)
	home, work = filepath.Join(base, "hermes-home"), filepath.Join(base, "project")
	os.MkdirAll(home, 0o700)
	os.MkdirAll(work, 0o755)
	cfg := fmt.Sprintf("provider: custom\nbase_url: %s\napi_key: sk-test\nmodel: test-model\n", srv.URL())
	os.WriteFile(filepath.Join(home, "config.yaml"), []byte(cfg), 0o600)
	return base, home, work
}

// A client on @modelcontextprotocol/sdk spawns hermes mcp serve over
// stdio and hands it a task: the approval the run needs is asked of it by
// elicitation (it accepts, the command runs), progress arrives, and the
// answer comes back with the session id that conversations_list knows.
func TestMCPServeNpmClientRunsTask(t *testing.T) {
	modules, node := testpeer.Node(t, "mcpclient")
	srv := llmtest.NewServer(t)
	srv.Enqueue(
		llmtest.Reply{ToolCalls: []llm.ToolCall{{ID: "call_rm", Name: "terminal", Arguments: `{"command":"rm -rf victim"}`}}},
		llmtest.Reply{Text: "The victim is deleted."},
	)
	base, home, work := mcpServeHome(t, srv)
	victim := filepath.Join(work, "victim")
	os.MkdirAll(filepath.Join(victim, "sub"), 0o755)

	cmd := exec.Command(node, filepath.Join(filepath.Dir(modules), "run-task.mjs"), "delete the victim directory")
	cmd.Dir = work
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + base, "HERMES_HOME=" + home, "HERMES_LOCAL_PORTS=none", "HERMES_BIN=" + hermesBin}
	var got struct {
		Server       string
		Tools        []string
		IsError      bool
		Text         string
		SessionID    string
		Progress     []string
		Elicitations []string
		Listed       []string
	}
	runClient(t, cmd, &got, nil)
	want := []string{"conversation_get", "conversations_list", "events_poll", "events_wait", "messages_read", "messages_send",
		"permissions_list_open", "permissions_respond", "run_task", "session_search"}
	if got.Server != "hermes" || !slices.Equal(got.Tools, want) {
		t.Errorf("server %q offers %q", got.Server, got.Tools)
	}
	if got.IsError || got.Text != "The victim is deleted." || got.SessionID == "" {
		t.Fatalf("run_task: %+v", got)
	}
	if len(got.Elicitations) != 1 || !strings.Contains(got.Elicitations[0], "rm -rf victim") {
		t.Errorf("elicitations: %q", got.Elicitations)
	}
	if _, err := os.Stat(victim); !os.IsNotExist(err) {
		t.Errorf("accepted, yet the victim is there: %v", err)
	}
	progress := strings.Join(got.Progress, "\n")
	if !strings.Contains(progress, "tool started: terminal") || !strings.Contains(progress, "tool finished: terminal (ok)") {
		t.Errorf("progress: %q", got.Progress)
	}
	if !slices.Equal(got.Listed, []string{got.SessionID}) {
		t.Errorf("conversations_list: %q, want the run's %s", got.Listed, got.SessionID)
	}
}

// --listen serves streamable HTTP on loopback with the key of
// MCP_SERVER_KEY: a request without it gets 401. It does not start
// without a key, nor on a public address without --allow-public.
func TestMCPServeHTTPNeedsAKey(t *testing.T) {
	srv := llmtest.NewServer(t)
	_, home, work := mcpServeHome(t, srv)

	r := hermes(t, home, work, "mcp", "serve", "--listen", "127.0.0.1:0")
	if r.code != 2 || !strings.Contains(r.stderr, "MCP_SERVER_KEY") {
		t.Fatalf("without a key: exit %d\n%s", r.code, r.stderr)
	}
	r = hermesEnv(t, []string{"MCP_SERVER_KEY=sekret"}, home, work, "mcp", "serve", "--listen", "0.0.0.0:0")
	if r.code != 2 || !strings.Contains(r.stderr, "--allow-public") {
		t.Fatalf("a public address: exit %d\n%s", r.code, r.stderr)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cmd := exec.CommandContext(ctx, hermesBin, "mcp", "serve", "--listen", ":0")
	cmd.Dir = work
	cmd.Env = []string{"HOME=" + home, "HERMES_HOME=" + home, "PATH=" + os.Getenv("PATH"), "HERMES_LOCAL_PORTS=none", "MCP_SERVER_KEY=sekret"}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cancel() // ends the server
		cmd.Wait()
	}()
	addr := make(chan string, 1)
	go func() {
		listening := regexp.MustCompile(`listening on (http://127\.0\.0\.1:\d+/mcp)`)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := listening.FindStringSubmatch(sc.Text()); m != nil {
				addr <- m[1]
			}
		}
	}()
	var url string
	select {
	case url = <-addr:
	case <-time.After(30 * time.Second):
		t.Fatal("hermes mcp serve --listen never said where it listens")
	}
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	for _, key := range []string{"", "sekret"} {
		req, _ := http.NewRequest("POST", url, strings.NewReader(init))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		want := http.StatusOK
		if key == "" {
			want = http.StatusUnauthorized
		}
		if resp.StatusCode != want {
			t.Fatalf("key %q: status %d, want %d", key, resp.StatusCode, want)
		}
	}
}
