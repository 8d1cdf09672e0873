package e2e

import (
	"encoding/base64"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/mcptest"
	"github.com/hermes-go/hermes/internal/testpeer"
	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
)

// An editor on @agentclientprotocol/sdk spawns hermes acp, opens a
// session, prompts, receives the streamed updates and a permission
// request, rejects it (the victim stays), then cancels a slow turn.
func TestACPClientDrivesHermesACP(t *testing.T) {
	modules, node := testpeer.Node(t, "clients")
	srv := llmtest.NewServer(t)
	srv.Enqueue(
		llmtest.Reply{Reasoning: "The user wants it gone.", ToolCalls: []llm.ToolCall{{ID: "call_rm", Name: "terminal", Arguments: `{"command":"rm -rf victim"}`}}},
		llmtest.Reply{Text: "I did not delete it: the permission was refused."},
		llmtest.Reply{ToolCalls: []llm.ToolCall{{ID: "call_read", Name: "read_file", Arguments: `{"path":"victim/keep.txt"}`}}},
		llmtest.Reply{Hang: true},
	)
	base := outsideTmp(t)
	home, work := filepath.Join(base, "hermes-home"), filepath.Join(base, "project")
	victim := filepath.Join(work, "victim")
	os.MkdirAll(home, 0o700)
	os.MkdirAll(victim, 0o755)
	os.WriteFile(filepath.Join(victim, "keep.txt"), []byte("precious\n"), 0o644)
	cfg := fmt.Sprintf("provider: custom\nbase_url: %s\napi_key: sk-test\nmodel: test-model\n", srv.URL())
	os.WriteFile(filepath.Join(home, "config.yaml"), []byte(cfg), 0o600)

	cmd := exec.Command(node, filepath.Join(filepath.Dir(modules), "acp-client.mjs"), work)
	cmd.Dir = work
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + base, "HERMES_HOME=" + home, "HERMES_LOCAL_PORTS=none", "HERMES_BIN=" + hermesBin}
	var got struct {
		Agent       string
		LoadSession bool
		Modes       []string
		Permissions []struct {
			ToolCallID string
			Options    []string
		}
		Updates   map[string]int
		ToolCall  struct{ ID, Kind, Title string }
		Text      string
		FirstStop string
		SlowStop  string
		Cancel    int `json:"cancelMillis"`
		SessionID string
	}
	runClient(t, cmd, &got, nil)
	if got.Agent != "hermes" || !got.LoadSession || strings.Join(got.Modes, ",") != "default,yolo,read-only" {
		t.Errorf("initialize/new: %+v", got)
	}
	if len(got.Permissions) != 1 || got.Permissions[0].ToolCallID != "call_rm" || strings.Join(got.Permissions[0].Options, ",") != "allow_once,allow_always,reject_once" {
		t.Errorf("permissions %+v", got.Permissions)
	}
	if got.FirstStop != "end_turn" || got.Text != "I did not delete it: the permission was refused." || got.ToolCall.Kind != "execute" ||
		got.Updates["agent_thought_chunk"] == 0 || got.Updates["tool_call_update"] == 0 {
		t.Errorf("first turn: %+v", got)
	}
	if got.SlowStop != "cancelled" {
		t.Errorf("slow turn stopped with %q", got.SlowStop)
	}
	t.Logf("cancel answered in %d ms", got.Cancel)
	if b, err := os.ReadFile(filepath.Join(victim, "keep.txt")); err != nil || string(b) != "precious\n" {
		t.Fatalf("the victim changed: %q %v", b, err)
	}
	if msgs := srv.Requests()[1].Messages(); !strings.Contains(msgs[len(msgs)-1].Content, "DENIED") {
		t.Errorf("the model read %q", msgs[len(msgs)-1].Content)
	}
	r := hermes(t, home, work, "sessions", "show", got.SessionID, "--json")
	if r.code != 0 || !strings.Contains(r.stdout, `"source": "acp"`) && !strings.Contains(r.stdout, `"source":"acp"`) {
		t.Fatalf("the session is not stored: %d %s %s", r.code, r.stdout, r.stderr)
	}
}

// An editor on @agentclientprotocol/sdk passes hermes acp MCP servers of
// its own: the session they came with offers the working one's tool, and
// its result comes back as the tool call's update; the broken one is told
// to the editor before any prompt; a session without them is not offered
// them; session/list names both sessions, newest first; session/load
// starts the servers it is passed again; when the editor quits, every
// server process ends with hermes.
func TestACPEditorMCPServers(t *testing.T) {
	modules, node := testpeer.Node(t, "clients")
	srv := llmtest.NewServer(t)
	echo := func(id string) llmtest.Reply {
		return llmtest.Reply{ToolCalls: []llm.ToolCall{{ID: id, Name: "mcp__ed__echo", Arguments: `{"message":"via ` + id + `"}`}}}
	}
	srv.Enqueue(echo("call_1"), llmtest.Reply{Text: "Echoed."}, llmtest.Reply{Text: "Nothing."}, echo("call_2"), llmtest.Reply{Text: "Again."})
	base := outsideTmp(t)
	home, work := filepath.Join(base, "hermes-home"), filepath.Join(base, "project")
	os.MkdirAll(home, 0o700)
	os.MkdirAll(work, 0o755)
	pidfile := filepath.Join(work, "ed.pid")
	cfg := fmt.Sprintf("provider: custom\nbase_url: %s\napi_key: sk-test\nmodel: test-model\n", srv.URL())
	os.WriteFile(filepath.Join(home, "config.yaml"), []byte(cfg), 0o600)

	cmd := exec.Command(node, filepath.Join(filepath.Dir(modules), "acp-mcp-client.mjs"), work)
	cmd.Dir = work
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + base, "HERMES_HOME=" + home, "HERMES_LOCAL_PORTS=none",
		"HERMES_BIN=" + hermesBin, "MCP_SERVER_BIN=" + mcptest.Binary(t), "PIDFILE=" + pidfile}
	type turn struct {
		Text, Stop string
		Tools      []struct{ ID, Title, Status, Output string }
	}
	var got struct {
		MCPCapabilities struct{ HTTP, SSE bool } `json:"mcpCapabilities"`
		CanList         bool
		First, Second   string
		Notice          *string
		WithServer      turn
		Without         turn
		Listed          []struct{ ID, Cwd, Title, UpdatedAt string }
		LoadedStop      string
		Pids            []string
		Exit            *struct{ Code *int }
	}
	stderr := runClient(t, cmd, &got, nil)
	if !got.MCPCapabilities.HTTP || !got.MCPCapabilities.SSE || !got.CanList {
		t.Errorf("capabilities: %+v", got)
	}
	if got.Notice == nil || !strings.Contains(*got.Notice, "MCP server broken failed to start") || !strings.Contains(*got.Notice, "no-such-mcp-server") {
		t.Errorf("the editor was not told of the broken server before the first prompt: %v\n%s", got.Notice, stderr)
	}
	w := got.WithServer
	if w.Stop != "end_turn" || w.Text != "Echoed." || len(w.Tools) != 2 || w.Tools[0].Title != "mcp__ed__echo" ||
		w.Tools[1].ID != "call_1" || w.Tools[1].Status != "completed" || !strings.Contains(w.Tools[1].Output, "Echo: via call_1") {
		t.Errorf("the turn with the server: %+v", w)
	}
	isEd := func(n string) bool { return strings.HasPrefix(n, "mcp__ed__") }
	reqs := srv.Requests()
	if len(reqs) != 5 {
		t.Fatalf("%d model calls", len(reqs))
	}
	offered := func(r *llmtest.Request) []string {
		var names []string
		for _, d := range r.Tools() {
			names = append(names, d.Name)
		}
		return names
	}
	if !slices.ContainsFunc(offered(reqs[0]), isEd) || slices.ContainsFunc(offered(reqs[0]), func(n string) bool { return strings.HasPrefix(n, "mcp__broken__") }) {
		t.Errorf("the first session was offered %v", offered(reqs[0]))
	}
	if got.Without.Stop != "end_turn" || slices.ContainsFunc(offered(reqs[2]), isEd) {
		t.Errorf("the session without servers: %+v, offered %v", got.Without, offered(reqs[2]))
	}
	if len(got.Listed) != 2 || got.Listed[0].ID != got.Second || got.Listed[1].ID != got.First ||
		got.Listed[1].Cwd != work || got.Listed[1].Title == "" || got.Listed[1].UpdatedAt == "" {
		t.Errorf("session/list: %+v (first %s, second %s)", got.Listed, got.First, got.Second)
	}
	if msgs := reqs[4].Messages(); got.LoadedStop != "end_turn" || !strings.Contains(msgs[len(msgs)-1].Content, "Echo: via call_2") {
		t.Errorf("the loaded session: stop %q, the model read %+v", got.LoadedStop, msgs[len(msgs)-1])
	}
	if got.Exit == nil || got.Exit.Code == nil || *got.Exit.Code != 0 {
		t.Errorf("hermes acp did not exit cleanly when the editor quit: %+v\n%s", got.Exit, stderr)
	}
	if len(got.Pids) != 2 || got.Pids[0] == got.Pids[1] {
		t.Fatalf("server pids %v", got.Pids)
	}
	for _, p := range got.Pids {
		pid, _ := strconv.Atoi(p)
		if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); err == nil {
			stat, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
			t.Errorf("MCP server %d outlived hermes: %s", pid, stat)
		}
	}
}

// An editor on @agentclientprotocol/sdk reopens a conversation it still
// shows: hermes acp resumes it without replaying it, the next prompt
// (on the model the editor switched to, with a screenshot) continues the
// stored history and carries the image to the model; audio is refused.
func TestACPClientResumesAndSendsAnImage(t *testing.T) {
	modules, node := testpeer.Node(t, "clients")
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Reply{Text: "Remembered."}, llmtest.Reply{Text: "A terminal, and 42."})
	base := outsideTmp(t)
	home, work := filepath.Join(base, "hermes-home"), filepath.Join(base, "project")
	os.MkdirAll(home, 0o700)
	os.MkdirAll(work, 0o755)
	cfg := fmt.Sprintf("provider: custom\nbase_url: %[1]s\napi_key: sk-test\nmodel:\n  default: test-model\n  vision: false\n"+
		"fallback_providers:\n  - provider: custom\n    model: vision-model\n    base_url: %[1]s\n", srv.URL())
	os.WriteFile(filepath.Join(home, "config.yaml"), []byte(cfg), 0o600)
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR screenshot")
	b64 := base64.StdEncoding.EncodeToString(png)

	cmd := exec.Command(node, filepath.Join(filepath.Dir(modules), "acp-resume-client.mjs"), work)
	cmd.Dir = work
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + base, "HERMES_HOME=" + home, "HERMES_LOCAL_PORTS=none",
		"HERMES_BIN=" + hermesBin, "IMAGE_B64=" + b64}
	var got struct {
		CanResume, CanImage   bool
		SessionID             string
		Models                []string
		CurrentModel          string
		FirstStop, SecondStop string
		ResumedModes          int
		UpdatesAfterResume    int
		Replayed              int
		Text                  string
		AudioError            *string
	}
	stderr := runClient(t, cmd, &got, nil)
	if !got.CanResume || !got.CanImage || got.CurrentModel != "custom:test-model" || strings.Join(got.Models, ",") != "custom:test-model,custom:vision-model" {
		t.Errorf("initialize/new: %+v", got)
	}
	if got.FirstStop != "end_turn" || got.SecondStop != "end_turn" || got.ResumedModes != 3 || got.Text != "A terminal, and 42." {
		t.Errorf("turns: %+v\n%s", got, stderr)
	}
	if got.UpdatesAfterResume != 0 || got.Replayed != 0 {
		t.Errorf("the resumed session was replayed: %+v", got)
	}
	if got.AudioError == nil || !strings.Contains(*got.AudioError, "audio (audio/wav) is not supported") {
		t.Errorf("audio: %v", got.AudioError)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model calls", len(reqs))
	}
	sent := reqs[1].Messages()
	user := sent[len(sent)-1]
	if reqs[1].Model != "vision-model" || len(sent) != 4 || sent[1].Content != "Remember 42." ||
		user.Content != "What is in this screenshot?" || len(user.Images) != 1 || user.Images[0].Data != b64 || user.Images[0].MediaType != "image/png" {
		t.Errorf("the resumed turn went to %s with %+v", reqs[1].Model, sent)
	}
}
