package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

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
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	if err != nil {
		t.Fatalf("acp client: %v\n%s", err, stderr.String())
	}
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
	if err := json.Unmarshal(stdout, &got); err != nil {
		t.Fatalf("client output %q: %v\n%s", stdout, err, stderr.String())
	}
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
