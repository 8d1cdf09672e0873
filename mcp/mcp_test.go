package mcp

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hermes-go/hermes/internal/mcptest"
	"github.com/hermes-go/hermes/tool"
)

func TestStdioServerToolsAreOfferedUnderPrefixedNamesWithTheirSchemas(t *testing.T) {
	m, reg := start(t, Options{}, testServer("t-1"))
	if late := m.WaitStarted(context.Background(), 20*time.Second); late != nil {
		t.Fatalf("late: %v", late)
	}
	names := reg.Names()
	for _, want := range []string{"mcp__t_1__echo", "mcp__t_1__add_numbers", "mcp__t_1__list_resources", "mcp__t_1__read_resource",
		"mcp__t_1__list_prompts", "mcp__t_1__get_prompt"} {
		if !slices.Contains(names, want) {
			t.Fatalf("%s not offered; offered %v", want, names)
		}
	}
	echo, _ := reg.Get("mcp__t_1__echo")
	s := echo.Spec()
	if s.Toolset != "mcp-t-1" || s.Description != "Echoes back the message" || s.MaxResultChars != MaxResultChars || s.Class != tool.Parallel {
		t.Fatalf("spec %+v", s)
	}
	var schema struct {
		Type       string                     `json:"type"`
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
		Dollar     string                     `json:"$schema"`
	}
	if err := json.Unmarshal(s.Parameters, &schema); err != nil || schema.Type != "object" || schema.Properties["message"] == nil ||
		!slices.Equal(schema.Required, []string{"message"}) || schema.Dollar != "" {
		t.Fatalf("schema %s (%v)", s.Parameters, err)
	}

	if o := call(t, reg, "mcp__t_1__echo", map[string]any{"message": "hi"}); o.Result.IsError || o.Result.Content != "Echo: hi" {
		t.Fatalf("echo: %+v", o.Result)
	}
	if o := call(t, reg, "mcp__t_1__add_numbers", map[string]any{"a": 2, "b": 40}); o.Result.Content != "The sum of 2 and 40 is 42." {
		t.Fatalf("add: %+v", o.Result)
	}
	if o := call(t, reg, "mcp__t_1__fail", map[string]any{}); !o.Result.IsError || o.Result.Content != "it failed on purpose" {
		t.Fatalf("fail: %+v", o.Result)
	}
	if o := call(t, reg, "mcp__t_1__read_resource", map[string]any{"uri": "test://hello"}); o.Result.Content != "hello from a resource" {
		t.Fatalf("read_resource: %+v", o.Result)
	}
	if o := call(t, reg, "mcp__t_1__list_resources", map[string]any{}); !strings.Contains(o.Result.Content, "test://hello  hello (text/plain): A greeting") {
		t.Fatalf("list_resources: %+v", o.Result)
	}
	if o := call(t, reg, "mcp__t_1__list_prompts", map[string]any{}); o.Result.Content != "greet: Greets someone [arguments: who (required)]" {
		t.Fatalf("list_prompts: %+v", o.Result)
	}
	if o := call(t, reg, "mcp__t_1__get_prompt", map[string]any{"name": "greet", "arguments": map[string]string{"who": "Ada"}}); o.Result.Content != "user: Say hello to Ada" {
		t.Fatalf("get_prompt: %+v", o.Result)
	}
	st := stateOf(m, "t-1")
	if st.State != Ready || st.Tools != len(names) || st.Err != "" || st.Transport != "stdio" {
		t.Fatalf("status %+v", st)
	}
}

func TestToolNamesReplaceNonIdentifierCharactersAndFitProviders(t *testing.T) {
	for _, c := range []struct{ server, tool, want string }{
		{"everything", "get-sum", "mcp__everything__get_sum"},
		{"my.server", "a b/c", "mcp__my_server__a_b_c"},
		{"x", "ünï", "mcp__x___n_"},
	} {
		if got := ToolName(c.server, c.tool); got != c.want {
			t.Errorf("ToolName(%q, %q) = %q, want %q", c.server, c.tool, got, c.want)
		}
	}
	long := ToolName("server", strings.Repeat("t", 100))
	if len(long) != 64 || !strings.HasPrefix(long, "mcp__server__ttt") || long == ToolName("server", strings.Repeat("t", 101)) {
		t.Fatalf("long name %q (%d)", long, len(long))
	}
}

func TestIncludeAndExcludeChooseTheOfferedTools(t *testing.T) {
	inc := testServer("inc")
	inc.Include = []string{"echo", "add-*"}
	inc.Exclude = []string{"echo"} // include wins
	inc.NoResources, inc.NoPrompts = true, true
	exc := testServer("exc")
	exc.Exclude = []string{"crash", "b*"}
	m, reg := start(t, Options{}, inc, exc)
	m.WaitStarted(context.Background(), 20*time.Second)
	var incNames, excNames []string
	for _, n := range reg.Names() {
		if rest, ok := strings.CutPrefix(n, "mcp__inc__"); ok {
			incNames = append(incNames, rest)
		}
		if rest, ok := strings.CutPrefix(n, "mcp__exc__"); ok {
			excNames = append(excNames, rest)
		}
	}
	if !slices.Equal(incNames, []string{"add_numbers", "echo"}) {
		t.Fatalf("include: %v", incNames)
	}
	if slices.Contains(excNames, "crash") || slices.Contains(excNames, "big") || slices.Contains(excNames, "block") || !slices.Contains(excNames, "echo") {
		t.Fatalf("exclude: %v", excNames)
	}
}

func TestAToolWhoseDescriptionIsAnInjectionIsRefusedAndReported(t *testing.T) {
	w := newWarnings()
	m, reg := start(t, Options{OnWarning: w.add}, testServer("inj", "HERMES_MCPTEST_INJECT=1"))
	m.WaitStarted(context.Background(), 20*time.Second)
	if _, ok := reg.Get("mcp__inj__read_notes"); ok {
		t.Fatal("the injected tool is offered")
	}
	if _, ok := reg.Get("mcp__inj__echo"); !ok {
		t.Fatal("the other tools must stay")
	}
	w.await(t, "inj", `"read-notes" refused`, "prompt injection", "ignore_instructions")
	if st := stateOf(m, "inj"); !slices.Equal(st.Refused, []string{"read-notes"}) {
		t.Fatalf("status %+v", st)
	}
}

func TestAServerThatFailsToStartIsReportedAndTriedAgainWithBackoff(t *testing.T) {
	clock, w := newFakeClock(), newWarnings()
	m, reg := start(t, Options{Clock: clock, OnWarning: w.add}, testServer("bad", "HERMES_MCPTEST_EXIT=3"), testServer("good"))
	if late := m.WaitStarted(context.Background(), 20*time.Second); late != nil {
		t.Fatalf("late %v", late)
	}
	msg := w.await(t, "MCP server bad failed to start", "failing on purpose", "retrying in 1s")
	if _, ok := reg.Get("mcp__good__echo"); !ok {
		t.Fatal("the good server's tools must be there")
	}
	st := stateOf(m, "bad")
	if st.State != Down || !strings.Contains(st.Err, "failing on purpose") || st.Tools != 0 || st.Restarts != 0 {
		t.Fatalf("status %+v (%s)", st, msg)
	}
	clock.awaitTimer(t, time.Second)
	clock.Advance(time.Second)
	clock.awaitTimer(t, 2*time.Second) // the second attempt failed too
	if st := stateOf(m, "bad"); st.Restarts != 1 || st.State != Down || !st.NextTry.Equal(clock.Now().Add(2*time.Second)) {
		t.Fatalf("after a retry: %+v", st)
	}
	if n := strings.Count(strings.Join(w.all(), "\n"), "failed to start"); n != 1 {
		t.Fatalf("a failure repeated is reported once, not %d times: %q", n, w.all())
	}
}

func TestADeadServerAnswersDownThenComesBackAfterRestart(t *testing.T) {
	clock, w := newFakeClock(), newWarnings()
	pidfile := filepath.Join(t.TempDir(), "pid")
	m, reg := start(t, Options{Clock: clock, OnWarning: w.add}, testServer("s", "HERMES_MCPTEST_PIDFILE="+pidfile))
	m.WaitStarted(context.Background(), 20*time.Second)
	first, _ := os.ReadFile(pidfile)

	// The server dies in the middle of a call.
	if o := call(t, reg, "mcp__s__crash", map[string]any{}); !o.Result.IsError || !strings.Contains(o.Result.Content, "MCP server s is down") {
		t.Fatalf("crash: %+v", o.Result)
	}
	w.await(t, "MCP server s is down", "the server exited", "restarting it in 1s")
	clock.awaitTimer(t, time.Second)
	// Its tools stay and say why they cannot answer.
	o := call(t, reg, "mcp__s__echo", map[string]any{"message": "hi"})
	if !o.Result.IsError || !strings.Contains(o.Result.Content, "MCP server s is down: the server exited") || !strings.Contains(o.Result.Content, "starts it again in 1s") {
		t.Fatalf("echo while down: %+v", o.Result)
	}
	clock.Advance(time.Second)
	w.await(t, "MCP server s is back")
	if o := call(t, reg, "mcp__s__echo", map[string]any{"message": "again"}); o.Result.Content != "Echo: again" {
		t.Fatalf("echo after restart: %+v", o.Result)
	}
	second, _ := os.ReadFile(pidfile)
	if string(first) == string(second) {
		t.Fatal("the server was not started again")
	}
	if st := stateOf(m, "s"); st.State != Ready || st.Restarts != 1 {
		t.Fatalf("status %+v", st)
	}
}

func TestASlowServerDoesNotHoldTheWaitPastItsBoundAndJoinsWhenReady(t *testing.T) {
	clock, w := newFakeClock(), newWarnings()
	gate := filepath.Join(t.TempDir(), "go")
	m, reg := start(t, Options{Clock: clock, OnWarning: w.add}, testServer("slow", "HERMES_MCPTEST_WAITFILE="+gate), testServer("fast"))
	eventually(t, "the fast server is ready", func() bool { return stateOf(m, "fast").State == Ready })
	done := make(chan []string)
	go func() { done <- m.WaitStarted(context.Background(), 10*time.Second) }()
	clock.awaitTimer(t, 10*time.Second)
	clock.Advance(10 * time.Second)
	late := <-done
	if !slices.Equal(late, []string{"slow"}) {
		t.Fatalf("late %v", late)
	}
	w.await(t, "MCP server slow is still starting after 10s")
	if _, ok := reg.Get("mcp__fast__echo"); !ok {
		t.Fatal("the fast server is ready")
	}
	if _, ok := reg.Get("mcp__slow__echo"); ok {
		t.Fatal("the slow server cannot have tools yet")
	}
	gen := reg.Generation()
	os.WriteFile(gate, nil, 0o600)
	w.await(t, "MCP server slow is ready", "tools")
	if _, ok := reg.Get("mcp__slow__echo"); !ok || reg.Generation() == gen {
		t.Fatal("the slow server's tools must join the registry")
	}
	// A later wait does not wait again.
	if late := m.WaitStarted(context.Background(), 10*time.Second); late != nil {
		t.Fatalf("late %v", late)
	}
}

func TestToolsFromTheLastSessionAnswerWhenTheServerCannotStart(t *testing.T) {
	cache := t.TempDir()
	m, _ := start(t, Options{CacheDir: cache}, testServer("c"))
	m.WaitStarted(context.Background(), 20*time.Second)
	m.Close()

	w := newWarnings()
	broken := testServer("c", "HERMES_MCPTEST_EXIT=4") // same command: the cache applies
	m2, reg := start(t, Options{CacheDir: cache, OnWarning: w.add}, broken)
	m2.WaitStarted(context.Background(), 20*time.Second)
	o := call(t, reg, "mcp__c__echo", map[string]any{"message": "hi"})
	if !o.Result.IsError || !strings.Contains(o.Result.Content, "MCP server c is down") || !strings.Contains(o.Result.Content, "failing on purpose") {
		t.Fatalf("a remembered tool: %+v", o.Result)
	}
	if st := stateOf(m2, "c"); st.Tools == 0 || st.State != Down {
		t.Fatalf("status %+v", st)
	}
}

func TestACallTimesOutAtTheServersTimeout(t *testing.T) {
	s := testServer("slowcall")
	s.Timeout = 300 * time.Millisecond
	m, reg := start(t, Options{}, s)
	m.WaitStarted(context.Background(), 20*time.Second)
	o := call(t, reg, "mcp__slowcall__block", map[string]any{})
	if o.Status != tool.StatusTimeout || !strings.Contains(o.Result.Content, "timed out after 300ms") {
		t.Fatalf("block: %+v", o)
	}
	// The server is fine afterwards.
	if o := call(t, reg, "mcp__slowcall__echo", map[string]any{"message": "x"}); o.Result.Content != "Echo: x" {
		t.Fatalf("echo after a timeout: %+v", o.Result)
	}
}

func TestAResultOverFiftyThousandCharactersIsSpilledToAFile(t *testing.T) {
	m, reg := start(t, Options{}, testServer("big"))
	m.WaitStarted(context.Background(), 20*time.Second)
	o := call(t, reg, "mcp__big__big", map[string]any{"chars": 60_000})
	if o.SpillPath == "" || !strings.Contains(o.Result.Content, "Output cut at 50000 of 60000 chars") {
		t.Fatalf("big: %d chars, spill %q, tail %q", len(o.Result.Content), o.SpillPath, o.Result.Content[len(o.Result.Content)-200:])
	}
	if b, err := os.ReadFile(o.SpillPath); err != nil || len(b) != 60_000 {
		t.Fatalf("spill file: %d bytes, %v", len(b), err)
	}
}

func TestStreamableHTTPServerWithHeaders(t *testing.T) {
	srv := mcptest.NewServer(mcptest.Options{})
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer s3cret" {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(hs.Close) // after the manager's Close: its event stream holds a request open
	w := newWarnings()
	m, reg := start(t, Options{OnWarning: w.add},
		Server{Name: "web", URL: hs.URL, Headers: map[string]string{"Authorization": "Bearer s3cret"}},
		Server{Name: "nokey", URL: hs.URL})
	m.WaitStarted(context.Background(), 20*time.Second)
	if o := call(t, reg, "mcp__web__echo", map[string]any{"message": "over http"}); o.Result.Content != "Echo: over http" {
		t.Fatalf("echo: %+v", o.Result)
	}
	if st := stateOf(m, "web"); st.Transport != "http" || st.State != Ready {
		t.Fatalf("status %+v", st)
	}
	w.await(t, "MCP server nokey failed to start", "Unauthorized")
}

func TestReloadStartsNewServersStopsRemovedOnesAndKeepsTheRest(t *testing.T) {
	pidfile := filepath.Join(t.TempDir(), "pid")
	keep := testServer("keep", "HERMES_MCPTEST_PIDFILE="+pidfile)
	m, reg := start(t, Options{}, keep, testServer("gone"))
	m.WaitStarted(context.Background(), 20*time.Second)
	pid, _ := os.ReadFile(pidfile)
	if err := m.Reload([]Server{keep, testServer("new")}); err != nil {
		t.Fatal(err)
	}
	m.WaitStarted(context.Background(), 20*time.Second)
	if _, ok := reg.Get("mcp__gone__echo"); ok {
		t.Fatal("a removed server's tools must go")
	}
	if _, ok := reg.Get("mcp__new__echo"); !ok {
		t.Fatal("a new server's tools must come")
	}
	if again, _ := os.ReadFile(pidfile); string(again) != string(pid) {
		t.Fatal("an unchanged server must keep running")
	}
	var names []string
	for _, s := range m.Status() {
		names = append(names, s.Name)
	}
	if !slices.Equal(names, []string{"keep", "new"}) {
		t.Fatalf("servers %v", names)
	}
}

func TestCloseStopsServersAndRemovesTheirTools(t *testing.T) {
	pidfile := filepath.Join(t.TempDir(), "pid")
	m, reg := start(t, Options{}, testServer("s", "HERMES_MCPTEST_PIDFILE="+pidfile))
	m.WaitStarted(context.Background(), 20*time.Second)
	m.Close()
	if len(reg.Names()) != 0 {
		t.Fatalf("tools left: %v", reg.Names())
	}
	b, _ := os.ReadFile(pidfile)
	if alive(t, string(b)) {
		t.Fatal("the server process is still running")
	}
}

func TestStatusLine(t *testing.T) {
	if s := StatusLine(nil); s != "" {
		t.Fatal(s)
	}
	got := StatusLine([]Status{{Name: "a", State: Ready}, {Name: "b", State: Down}, {Name: "c", State: Starting}})
	if got != "MCP 1/3 (b down, c starting)" {
		t.Fatal(got)
	}
}

func TestStdioServersRunInTheSandboxUnlessTrusted(t *testing.T) {
	p, ws, victim := sandboxPolicy(t)
	trusted := testServer("trusted")
	trusted.Trusted = true
	m, reg := start(t, Options{Sandbox: &p, Dir: ws}, testServer("boxed"), trusted)
	if late := m.WaitStarted(context.Background(), 20*time.Second); late != nil {
		t.Fatalf("late %v: %v", late, m.Status())
	}
	inside := call(t, reg, "mcp__boxed__write_file", map[string]any{"path": filepath.Join(ws, "ok.txt"), "text": "x"})
	outside := call(t, reg, "mcp__boxed__write_file", map[string]any{"path": filepath.Join(victim, "boxed.txt"), "text": "x"})
	if inside.Result.Content != "written" || !outside.Result.IsError {
		t.Fatalf("sandboxed server: inside %+v, outside %+v", inside.Result, outside.Result)
	}
	if _, err := os.Stat(filepath.Join(victim, "boxed.txt")); err == nil {
		t.Fatal("a sandboxed server wrote outside the workspace")
	}
	if o := call(t, reg, "mcp__trusted__write_file", map[string]any{"path": filepath.Join(victim, "trusted.txt"), "text": "x"}); o.Result.Content != "written" {
		t.Fatalf("trusted server: %+v", o.Result)
	}
}
