package serve_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hermes-go/hermes/llm/llmtest"
)

// elicitor answers elicitations with the next action of its list, and
// records what it was asked.
type elicitor struct {
	mu      sync.Mutex
	actions []string
	asked   []string
}

func (e *elicitor) handle(_ context.Context, r *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.asked = append(e.asked, r.Params.Message)
	action := e.actions[0]
	e.actions = e.actions[1:]
	res := &sdk.ElicitResult{Action: action}
	if action == "accept" {
		res.Content = map[string]any{}
	}
	return res, nil
}

func mkdirs(t *testing.T, dirs ...string) {
	t.Helper()
	for _, d := range dirs {
		if err := os.MkdirAll(filepath.Join(d, "sub"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

// A dangerous command of run_task is asked of the client through
// elicitation: accept runs it once, decline refuses it and the model
// reads the refusal. Asked directly while serving the call (2025-11-25),
// and as an input request of the call (2026-07-28, multi round-trip).
func TestApprovalThroughElicitation(t *testing.T) {
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(version, func(t *testing.T) { approvalThroughElicitation(t, version) })
	}
}

func approvalThroughElicitation(t *testing.T, version string) {
	f := newFixture(t)
	keep, gone := filepath.Join(f.cwd, "keep"), filepath.Join(f.cwd, "gone")
	mkdirs(t, keep, gone)
	f.llm.Enqueue(terminal("call_1", "rm -rf gone"), llmtest.Reply{Text: "Deleted."},
		terminal("call_2", "rm -rf keep"), llmtest.Reply{Text: "Not deleted."})
	el := &elicitor{actions: []string{"accept", "decline"}}
	cs := f.connectVersion(t, &sdk.ClientOptions{ElicitationHandler: el.handle}, version)

	if res := call(t, cs, "run_task", map[string]any{"prompt": "delete gone"}); res.IsError || text(res) != "Deleted." {
		t.Fatalf("run_task: %s", text(res))
	}
	if _, err := os.Stat(gone); !os.IsNotExist(err) {
		t.Fatalf("accepted, yet %s is still there: %v (asked %q; the model read %q)", gone, err, el.asked, f.llm.Requests()[1].LastToolResult())
	}
	if res := call(t, cs, "run_task", map[string]any{"prompt": "delete keep"}); res.IsError || text(res) != "Not deleted." {
		t.Fatalf("run_task: %s", text(res))
	}
	if _, err := os.Stat(keep); err != nil {
		t.Fatalf("declined, yet %s is gone: %v", keep, err)
	}
	if got := f.llm.Requests()[3].LastToolResult(); !strings.Contains(got, "DENIED") {
		t.Fatalf("after a decline the model read %q", got)
	}
	if len(el.asked) != 2 || !strings.Contains(el.asked[0], "rm -rf gone") || !strings.Contains(el.asked[1], "rm -rf keep") {
		t.Fatalf("the client was asked %q", el.asked)
	}
}

// A client without the elicitation capability cannot be asked: the
// command is denied at once and the model is told nobody can approve it.
func TestApprovalDeniedWithoutElicitation(t *testing.T) {
	f := newFixture(t)
	keep := filepath.Join(f.cwd, "keep")
	mkdirs(t, keep)
	f.llm.Enqueue(terminal("call_1", "rm -rf keep"), llmtest.Reply{Text: "I could not."})
	cs := f.connect(t, nil)
	if res := call(t, cs, "run_task", map[string]any{"prompt": "delete keep"}); res.IsError || text(res) != "I could not." {
		t.Fatalf("run_task: %s", text(res))
	}
	if _, err := os.Stat(keep); err != nil {
		t.Fatalf("nobody approved, yet %s is gone: %v", keep, err)
	}
	if got := f.llm.Requests()[1].LastToolResult(); !strings.Contains(got, "nobody can approve") {
		t.Fatalf("the model read %q", got)
	}
	var open struct{ Count int }
	structured(t, call(t, cs, "permissions_list_open", map[string]any{}), &open)
	if open.Count != 0 {
		t.Fatalf("%d approvals left open", open.Count)
	}
}

// While the client's elicitation waits, the approval is listed by
// permissions_list_open and permissions_respond (here from a second
// client) answers it: the command runs, and the event queue records
// both ends. On a protocol where the server asks while serving the call,
// the elicitation is withdrawn; on one with multi round-trip calls the
// client's late answer finds the run already decided.
func TestPermissionsRespondAnswersAWaitingApproval(t *testing.T) {
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(version, func(t *testing.T) { permissionsRespond(t, version) })
	}
}

func permissionsRespond(t *testing.T, version string) {
	f := newFixture(t)
	gone := filepath.Join(f.cwd, "gone")
	mkdirs(t, gone)
	f.llm.Enqueue(terminal("call_1", "rm -rf gone"), llmtest.Reply{Text: "Deleted."})
	asked, release, withdrawn := make(chan struct{}), make(chan struct{}), make(chan struct{})
	slow := func(ctx context.Context, r *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
		close(asked)
		select { // nobody at this client answers in time
		case <-ctx.Done():
			close(withdrawn)
			return nil, ctx.Err()
		case <-release:
			return &sdk.ElicitResult{Action: "decline"}, nil
		}
	}
	ct, st := sdk.NewInMemoryTransports()
	ss, err := f.srv.MCP().Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	runner, err := sdk.NewClient(&sdk.Implementation{Name: "runner", Version: "1"}, &sdk.ClientOptions{ElicitationHandler: slow}).
		Connect(context.Background(), ct, &sdk.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	defer runner.Close()
	if got := ss.InitializeParams().ProtocolVersion; got != version {
		t.Fatalf("negotiated %s, want %s", got, version)
	}
	other := f.connect(t, nil)

	done := make(chan *sdk.CallToolResult, 1)
	go func() {
		res, err := runner.CallTool(context.Background(), &sdk.CallToolParams{Name: "run_task", Arguments: map[string]any{"prompt": "delete gone"}})
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	select {
	case <-asked:
	case <-time.After(bound):
		t.Fatal("the client was never asked")
	}

	var open struct {
		Count     int
		Approvals []struct {
			ID, Command, Description string
			SessionID                string `json:"session_id"`
		}
	}
	structured(t, call(t, other, "permissions_list_open", map[string]any{}), &open)
	if open.Count != 1 || open.Approvals[0].Command != "rm -rf gone" || open.Approvals[0].SessionID == "" || open.Approvals[0].Description == "" {
		t.Fatalf("permissions_list_open: %+v", open)
	}
	id := open.Approvals[0].ID
	if res := call(t, other, "permissions_respond", map[string]any{"id": id, "decision": "maybe"}); !res.IsError {
		t.Fatalf("a bad decision was accepted: %s", text(res))
	}
	if res := call(t, other, "permissions_respond", map[string]any{"id": id, "decision": "allow-once"}); res.IsError {
		t.Fatalf("permissions_respond: %s", text(res))
	}
	if version < "2026-07-28" {
		select {
		case <-withdrawn:
		case <-time.After(bound):
			t.Fatal("the elicitation was not withdrawn")
		}
	} else {
		close(release) // the client's own answer, now too late
	}
	var res *sdk.CallToolResult
	select {
	case res = <-done:
	case <-time.After(bound):
		t.Fatal("the run did not go on after the answer")
	}
	if res == nil || text(res) != "Deleted." {
		t.Fatalf("run_task: %+v", res)
	}
	if _, err := os.Stat(gone); !os.IsNotExist(err) {
		t.Fatalf("allowed, yet %s is still there: %v", gone, err)
	}
	if res := call(t, other, "permissions_respond", map[string]any{"id": id, "decision": "deny"}); !res.IsError {
		t.Fatalf("an answered approval was answered again: %s", text(res))
	}

	var polled struct {
		Events []struct {
			Type       string
			ApprovalID string `json:"approval_id"`
			Decision   string
			ResolvedBy string `json:"resolved_by"`
		}
	}
	structured(t, call(t, other, "events_poll", map[string]any{"limit": 200}), &polled)
	var kinds []string
	for _, e := range polled.Events {
		if e.ApprovalID == id {
			kinds = append(kinds, e.Type+":"+e.Decision+":"+e.ResolvedBy)
		}
	}
	if strings.Join(kinds, ",") != "approval_requested::,approval_resolved:allow-once:permissions_respond" {
		t.Fatalf("approval events: %q", kinds)
	}
}
