package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/mcptest"
	"github.com/hermes-go/hermes/internal/testpeer"
	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
)

// everything is the npm MCP server "everything": node and its script.
func everything(t *testing.T) (node, script, peers string) {
	t.Helper()
	modules, node := testpeer.Node(t, "mcp")
	return node, filepath.Join(modules, "@modelcontextprotocol", "server-everything", "dist", "index.js"), filepath.Dir(modules)
}

// everythingHTTP starts the server over streamable HTTP on a free port of
// 127.0.0.1 and returns its URL.
func everythingHTTP(t *testing.T) string {
	t.Helper()
	node, script, peers := everything(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	// loopback.cjs binds the server to 127.0.0.1 rather than every interface.
	cmd := exec.Command(node, "--require", filepath.Join(peers, "loopback.cjs"), script, "streamableHttp")
	cmd.Env = append(os.Environ(), "PORT="+strconv.Itoa(port))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	deadline := time.Now().Add(30 * time.Second)
	for {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			return "http://" + addr + "/mcp"
		}
		if time.Now().After(deadline) {
			t.Fatalf("server-everything over HTTP did not listen: %s", out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// resultsByID returns the tool results a request carried, by call id.
func resultsByID(r *llmtest.Request) map[string]string {
	out := map[string]string{}
	for _, m := range r.Messages() {
		if m.Role == llm.RoleTool {
			out[m.ToolCallID] = m.Content
		}
	}
	return out
}

func offered(r *llmtest.Request) map[string]bool {
	out := map[string]bool{}
	for _, d := range r.Tools() {
		out[d.Name] = true
	}
	return out
}

func call(id, name, args string) llm.ToolCall {
	return llm.ToolCall{ID: id, Name: name, Arguments: args}
}

// A model calls real MCP servers over stdio and streamable HTTP and gets
// their answers; a server that never starts and one that cannot start
// are reported on stderr, and the rest of hermes works.
func TestMCPServersOverStdioAndHTTPAnswerTheModel(t *testing.T) {
	node, script, _ := everything(t)
	url := everythingHTTP(t)
	home, work := t.TempDir(), t.TempDir()
	writeConfig(t, home, fmt.Sprintf(`mcp_startup_timeout: 5
mcp_servers:
  everything:
    command: %s
    args: [%s, stdio]
  web:
    url: %s
  never:
    command: sleep
    args: ["1000"]
  broken:
    command: /nonexistent/mcp-server
`, node, script, url))
	srv := llmtest.NewServer(t)
	srv.Enqueue(
		llmtest.Reply{ToolCalls: []llm.ToolCall{
			call("echo", "mcp__everything__echo", `{"message":"hello over stdio"}`),
			call("sum", "mcp__everything__get_sum", `{"a":2,"b":3}`),
			call("webecho", "mcp__web__echo", `{"message":"hello over http"}`),
			call("websum", "mcp__web__get_sum", `{"a":20,"b":22}`),
			call("shell", "terminal", `{"command":"echo the rest works"}`),
		}},
		llmtest.Reply{Text: "all answered"},
	)
	r := hermes(t, home, work, "-z", "use the servers", "--provider", "custom", "--base-url", srv.URL(), "--model", "m")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "all answered" {
		t.Fatalf("exit %d\nstdout %q\nstderr %s", r.code, r.stdout, r.stderr)
	}
	reqs := srv.Requests()
	tools := offered(reqs[0])
	for _, name := range []string{"mcp__everything__echo", "mcp__everything__get_sum", "mcp__web__echo", "mcp__web__get_sum", "mcp__everything__read_resource", "terminal"} {
		if !tools[name] {
			t.Errorf("%s not offered", name)
		}
	}
	got := resultsByID(reqs[1])
	for id, want := range map[string]string{
		"echo": "Echo: hello over stdio", "sum": "The sum of 2 and 3 is 5.",
		"webecho": "Echo: hello over http", "websum": "The sum of 20 and 22 is 42.",
	} {
		if got[id] != want {
			t.Errorf("%s: %q, want %q", id, got[id], want)
		}
	}
	if !strings.Contains(got["shell"], "the rest works") {
		t.Errorf("terminal: %q", got["shell"])
	}
	for _, want := range []string{"MCP server never is still starting after 5s", "MCP server broken failed to start", "/nonexistent/mcp-server"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
}

// running is a hermes process whose stderr lines a test can wait for.
type running struct {
	cmd   *exec.Cmd
	lines chan string
	mu    sync.Mutex
	all   []string
	out   bytes.Buffer
	done  chan struct{}
}

func startHermes(t *testing.T, home, work string, args ...string) *running {
	t.Helper()
	cmd := exec.Command(hermesBin, args...)
	cmd.Dir = work
	cmd.Env = []string{"HOME=" + home, "HERMES_HOME=" + home, "PATH=" + os.Getenv("PATH"), "HERMES_LOCAL_PORTS=none"}
	r := &running{cmd: cmd, lines: make(chan string, 100), done: make(chan struct{})}
	cmd.Stdout = &r.out
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(r.done)
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			r.mu.Lock()
			r.all = append(r.all, sc.Text())
			r.mu.Unlock()
			select {
			case r.lines <- sc.Text():
			default:
			}
		}
	}()
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return r
}

// await waits for a stderr line holding sub.
func (r *running) await(sub string) error {
	timeout := time.After(30 * time.Second)
	for {
		select {
		case l := <-r.lines:
			if strings.Contains(l, sub) {
				return nil
			}
		case <-timeout:
			return fmt.Errorf("no stderr line with %q", sub)
		}
	}
}

func (r *running) wait() (string, string, int) {
	err := r.cmd.Wait()
	<-r.done
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.out.String(), strings.Join(r.all, "\n"), code
}

// The server killed in the middle of a session gives the model a clear
// error, is started again, and its tools answer again.
func TestAKilledMCPServerGivesAClearErrorThenComesBack(t *testing.T) {
	node, script, _ := everything(t)
	home, work := t.TempDir(), t.TempDir()
	pidfile := filepath.Join(work, "server.pid")
	writeConfig(t, home, fmt.Sprintf(`mcp_servers:
  everything:
    command: sh
    args: ["-c", "echo $$ > %s; exec %s %s stdio"]
`, pidfile, node, script))
	srv := llmtest.NewServer(t)
	var mu sync.Mutex
	var problems []string
	problem := func(f string, a ...any) {
		mu.Lock()
		problems = append(problems, fmt.Sprintf(f, a...))
		mu.Unlock()
	}
	var hp atomic.Pointer[running] // the handler runs on the server's goroutines
	proc := func() *running {
		for hp.Load() == nil {
			time.Sleep(time.Millisecond)
		}
		return hp.Load()
	}
	echo := func(id string) llmtest.Reply {
		return llmtest.Reply{ToolCalls: []llm.ToolCall{call(id, "mcp__everything__echo", fmt.Sprintf(`{"message":%q}`, id))}}
	}
	srv.Handle(func(req *llmtest.Request) llmtest.Reply {
		switch req.Index {
		case 0:
			return echo("one")
		case 1:
			b, _ := os.ReadFile(pidfile)
			pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
			if err != nil {
				problem("pid file: %q %v", b, err)
				return llmtest.Reply{Text: "no pid"}
			}
			syscall.Kill(pid, syscall.SIGKILL)
			if err := proc().await("MCP server everything is down"); err != nil {
				problem("%v", err)
			}
			return echo("two")
		case 2:
			if err := proc().await("MCP server everything is back"); err != nil {
				problem("%v", err)
			}
			return echo("three")
		}
		return llmtest.Reply{Text: "survived"}
	})
	r := startHermes(t, home, work, "-z", "echo thrice", "--provider", "custom", "--base-url", srv.URL(), "--model", "m")
	hp.Store(r)
	stdout, stderr, code := r.wait()
	if code != 0 || strings.TrimSpace(stdout) != "survived" || len(problems) > 0 {
		t.Fatalf("exit %d stdout %q problems %q\nstderr:\n%s", code, stdout, problems, stderr)
	}
	reqs := srv.Requests()
	if got := resultsByID(reqs[1])["one"]; got != "Echo: one" {
		t.Fatalf("before the kill: %q", got)
	}
	if got := resultsByID(reqs[2])["two"]; !strings.Contains(got, "MCP server everything is down: the server exited") {
		t.Fatalf("while down: %q", got)
	}
	if got := resultsByID(reqs[3])["three"]; got != "Echo: three" {
		t.Fatalf("after the restart: %q\nstderr:\n%s", got, stderr)
	}
	if !offered(reqs[2])["mcp__everything__echo"] {
		t.Fatal("the tools of a dead server must stay offered")
	}
}

// hermes mcp add builds the configuration (keeping what was there) and
// hermes mcp list shows each server's state, tool count and last error.
func TestMCPListShowsStateToolsAndErrors(t *testing.T) {
	node, script, _ := everything(t)
	url := everythingHTTP(t)
	home, work := t.TempDir(), t.TempDir()
	writeConfig(t, home, "# my settings\nmcp_startup_timeout: 5 # quick\n")
	for _, args := range [][]string{
		{"everything", "--", node, script, "stdio"},
		{"web", "--url", url},
		{"never", "--", "sleep", "1000"},
		{"broken", "--", "/nonexistent/mcp-server"},
		{"off", "--disabled", "--", "sleep", "1"},
	} {
		if r := hermes(t, home, work, append([]string{"mcp", "add"}, args...)...); r.code != 0 || !strings.Contains(r.stdout, "Added MCP server "+args[0]) {
			t.Fatalf("mcp add %v: exit %d %s %s", args, r.code, r.stdout, r.stderr)
		}
	}
	b, _ := os.ReadFile(filepath.Join(home, "config.yaml"))
	if !strings.HasPrefix(string(b), "# my settings\nmcp_startup_timeout: 5 # quick\nmcp_servers:\n  everything:\n") {
		t.Fatalf("config.yaml:\n%s", b)
	}
	r := hermes(t, home, work, "mcp", "list", "--json")
	if r.code != 0 {
		t.Fatalf("exit %d %s", r.code, r.stderr)
	}
	var rows []struct {
		Name, Transport, State, Error string
		Tools                         int
	}
	if err := json.Unmarshal([]byte(r.stdout), &rows); err != nil {
		t.Fatalf("%v: %s", err, r.stdout)
	}
	by := map[string]int{}
	for i, row := range rows {
		by[row.Name] = i
	}
	check := func(name, state, errPart string, tools bool) {
		t.Helper()
		i, ok := by[name]
		if !ok {
			t.Fatalf("%s not listed: %s", name, r.stdout)
		}
		row := rows[i]
		if row.State != state || !strings.Contains(row.Error, errPart) || (row.Tools > 0) != tools {
			t.Errorf("%s: %+v", name, row)
		}
	}
	check("everything", "ready", "", true)
	check("web", "ready", "", true)
	check("never", "starting", "no answer within 5s", false)
	check("broken", "down", "no such file or directory", false)
	check("off", "disabled", "", false)
	if rows[by["web"]].Transport != "http" {
		t.Errorf("web: %+v", rows[by["web"]])
	}

	table := hermes(t, home, work, "mcp", "list")
	if !contains(table.stdout, "NAME", "STATE", "everything", "ready", "broken", "down", "disabled") {
		t.Fatalf("table:\n%s", table.stdout)
	}
	if r := hermes(t, home, work, "mcp", "test", "everything"); r.code != 0 || !contains(r.stdout, "everything (stdio): ready", "mcp__everything__get_sum") {
		t.Fatalf("mcp test: exit %d %s %s", r.code, r.stdout, r.stderr)
	}
	if r := hermes(t, home, work, "mcp", "test", "broken"); r.code == 0 || !strings.Contains(r.stderr, "MCP server broken is down") {
		t.Fatalf("mcp test broken: exit %d %s %s", r.code, r.stdout, r.stderr)
	}
	if r := hermes(t, home, work, "mcp", "remove", "never"); r.code != 0 {
		t.Fatalf("mcp remove: %d %s", r.code, r.stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(home, "config.yaml")); strings.Contains(string(b), "never") || !strings.Contains(string(b), "# my settings") {
		t.Fatalf("after remove:\n%s", b)
	}
}

// benchFirstPrompt runs `hermes -z` with config.yaml holding servers and
// reports the time from the process's start to the first model request:
// the servers start in parallel and the first prompt waits for them.
func benchFirstPrompt(b *testing.B, servers string) {
	srv := llmtest.NewServer(b)
	var first atomic.Int64
	srv.Handle(func(*llmtest.Request) llmtest.Reply {
		first.CompareAndSwap(0, time.Now().UnixNano())
		return llmtest.Reply{Text: "ok"}
	})
	var total time.Duration
	for b.Loop() {
		home, work := b.TempDir(), b.TempDir()
		if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte(servers), 0o600); err != nil {
			b.Fatal(err)
		}
		cmd := exec.Command(hermesBin, "-z", "hi", "--provider", "custom", "--base-url", srv.URL(), "--model", "m")
		cmd.Dir = work
		cmd.Env = []string{"HOME=" + home, "HERMES_HOME=" + home, "PATH=" + os.Getenv("PATH"), "HERMES_LOCAL_PORTS=none"}
		first.Store(0)
		start := time.Now()
		if out, err := cmd.CombinedOutput(); err != nil || first.Load() == 0 {
			b.Fatalf("%v: %s", err, out)
		}
		total += time.Duration(first.Load() - start.UnixNano())
	}
	b.ReportMetric(float64(total.Microseconds())/float64(b.N)/1000, "ms-to-first-prompt")
}

// BenchmarkFirstPromptNoMCPServers is the baseline.
func BenchmarkFirstPromptNoMCPServers(b *testing.B) { benchFirstPrompt(b, "") }

// tenGoServers configures ten servers on the Go SDK
// (internal/mcptest/mcptest-server, built here).
func tenGoServers(b *testing.B, trusted bool) string {
	bin := mcptest.Binary(b)
	cfg := "mcp_servers:\n"
	for i := range 10 {
		cfg += fmt.Sprintf("  go%d:\n    command: %s\n    trusted: %v\n", i, bin, trusted)
	}
	return cfg
}

// BenchmarkFirstPromptTenGoMCPServers: ten fast servers, each sandboxed
// as hermes runs them.
func BenchmarkFirstPromptTenGoMCPServers(b *testing.B) { benchFirstPrompt(b, tenGoServers(b, false)) }

// BenchmarkFirstPromptTenTrustedGoMCPServers: the same, trusted (no
// sandbox: no namespaces to set up).
func BenchmarkFirstPromptTenTrustedGoMCPServers(b *testing.B) {
	benchFirstPrompt(b, tenGoServers(b, true))
}

// BenchmarkFirstPromptTenServerEverything: ten copies of the npm
// server-everything, where node's start-up dominates.
func BenchmarkFirstPromptTenServerEverything(b *testing.B) {
	modules, node := testpeer.Node(b, "mcp")
	script := filepath.Join(modules, "@modelcontextprotocol", "server-everything", "dist", "index.js")
	cfg := "mcp_servers:\n"
	for i := range 10 {
		cfg += fmt.Sprintf("  e%d:\n    command: %s\n    args: [%s, stdio]\n", i, node, script)
	}
	benchFirstPrompt(b, cfg)
}

// A sandboxed stdio server is forked by the sandbox helper of the
// terminal: while hermes runs, the server lives in the mount namespace
// of the terminal's commands (a server with a helper of its own would
// have one of its own). It gets no secret of hermes's environment,
// cannot write where the terminal's commands cannot, and ends with
// hermes.
func TestASandboxedMCPServerRunsInTheTerminalsSandboxHelper(t *testing.T) {
	home, work := t.TempDir(), t.TempDir()
	pidfile, victim := filepath.Join(work, "server.pid"), filepath.Join(home, "victim.txt")
	writeConfig(t, home, fmt.Sprintf(`mcp_servers:
  t:
    command: %s
    env:
      HERMES_MCPTEST_PIDFILE: %s
`, mcptest.Binary(t), pidfile))
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Reply{ToolCalls: []llm.ToolCall{
		call("ns", "terminal", `{"command":"readlink /proc/self/ns/mnt"}`),
		call("echo", "mcp__t__echo", `{"message":"boxed"}`),
		call("secret", "mcp__t__getenv", `{"name":"GITHUB_TOKEN"}`),
		call("write", "mcp__t__write_file", `{"path":"`+victim+`","text":"owned"}`),
	}})
	var serverPid, serverNS string
	srv.Handle(func(r *llmtest.Request) llmtest.Reply {
		// hermes, and its server, run while it waits for this answer.
		b, _ := os.ReadFile(pidfile)
		serverPid = strings.TrimSpace(string(b))
		serverNS, _ = os.Readlink("/proc/" + serverPid + "/ns/mnt")
		return llmtest.Reply{Text: "done"}
	})
	r := hermesEnv(t, []string{"GITHUB_TOKEN=ghp_" + strings.Repeat("aB3", 12)}, home, work,
		"-z", "go", "--provider", "custom", "--base-url", srv.URL(), "--model", "m")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "done" {
		t.Fatalf("exit %d\nstdout %q\nstderr %s", r.code, r.stdout, r.stderr)
	}
	got := resultsByID(srv.Requests()[1])
	terminalNS := regexp.MustCompile(`mnt:\[\d+\]`).FindString(got["ns"])
	own, _ := os.Readlink("/proc/self/ns/mnt")
	if terminalNS == "" || terminalNS == own {
		t.Fatalf("the terminal's command ran in %q, not in a sandbox", got["ns"])
	}
	if serverNS != terminalNS {
		t.Errorf("the server (pid %s) ran in mount namespace %q, not in the terminal helper's %s", serverPid, serverNS, terminalNS)
	}
	if got["echo"] != "Echo: boxed" || got["secret"] != "(unset)" {
		t.Errorf("echo %q, GITHUB_TOKEN %q", got["echo"], got["secret"])
	}
	if _, err := os.Stat(victim); !os.IsNotExist(err) {
		t.Errorf("the server wrote into HERMES_HOME (%q): %v", got["write"], err)
	}
	if b, err := os.ReadFile("/proc/" + serverPid + "/stat"); err == nil && !strings.Contains(string(b), ") Z ") {
		t.Errorf("the server outlived hermes: %s", b)
	}
}
