package e2e

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
)

// serveCall sends one request with the key to a running hermes serve.
func serveCall(t *testing.T, s *served, method, path, body string, header ...string) (*http.Response, []byte) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, _ := http.NewRequest(method, "http://"+s.addr+path, rd)
	req.Header.Set("Authorization", "Bearer sk-serve-test")
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, b
}

// A client of hermes serve starts a run, repeats the request with its
// Idempotency-Key, follows the run's events to the end, reads its
// outcome, stops a second run; the CLI resumes the run's session.
func TestHermesServeRunsAPI(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue(
		llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "read_file", Arguments: `{"path":"notes.txt"}`}}},
		llmtest.Reply{Text: "Your notes say 42."},
		llmtest.Reply{Hang: true},
	)
	home, work := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(work, "notes.txt"), []byte("the answer is 42\n"), 0o644)
	s := startServe(t, home, work, []string{"API_SERVER_KEY=sk-serve-test"},
		"--provider", "custom", "--base-url", srv.URL(), "--model", "test-model")

	resp, b := serveCall(t, s, http.MethodGet, "/v1/capabilities", "")
	var caps struct{ Features map[string]bool }
	if json.Unmarshal(b, &caps); resp.StatusCode != 200 || !caps.Features["runs"] || !caps.Features["chat_completions"] {
		t.Fatalf("capabilities %d %s", resp.StatusCode, b)
	}

	body := `{"input": "what do my notes say?"}`
	resp, b = serveCall(t, s, http.MethodPost, "/v1/runs", body, "Idempotency-Key", "e2e-1")
	var created struct{ ID, Status, SessionID string }
	json.Unmarshal(b, &created)
	created.SessionID = resp.Header.Get("X-Hermes-Session-Id")
	if resp.StatusCode != 202 || !strings.HasPrefix(created.ID, "run_") || created.SessionID == "" {
		t.Fatalf("POST /v1/runs: %d %s", resp.StatusCode, b)
	}
	resp, b = serveCall(t, s, http.MethodPost, "/v1/runs", body, "Idempotency-Key", "e2e-1")
	if !strings.Contains(string(b), created.ID) || resp.StatusCode != 202 {
		t.Fatalf("the repeated request: %d %s", resp.StatusCode, b)
	}

	// The events, read as any SSE client reads them.
	req, _ := http.NewRequest(http.MethodGet, "http://"+s.addr+"/v1/runs/"+created.ID+"/events", nil)
	req.Header.Set("Authorization", "Bearer sk-serve-test")
	er, err := http.DefaultClient.Do(req)
	if err != nil || er.StatusCode != 200 {
		t.Fatalf("events: %v %v", er, err)
	}
	var kinds []string
	var text strings.Builder
	sc := bufio.NewScanner(er.Body)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var e struct{ Type, Delta, Name string }
		json.Unmarshal([]byte(data), &e)
		if e.Type == "message.delta" {
			text.WriteString(e.Delta)
			if kinds[len(kinds)-1] == e.Type {
				continue
			}
		}
		kinds = append(kinds, e.Type)
	}
	er.Body.Close()
	if got := strings.Join(kinds, " "); got != "run.started tool.started tool.completed message.delta run.completed" || text.String() != "Your notes say 42." {
		t.Fatalf("events %s, text %q", got, text.String())
	}
	resp, b = serveCall(t, s, http.MethodGet, "/v1/runs/"+created.ID, "")
	var done struct {
		Status, Output string
		Usage          struct {
			TotalTokens int `json:"total_tokens"`
		}
	}
	if json.Unmarshal(b, &done); resp.StatusCode != 200 || done.Status != "completed" || done.Output != "Your notes say 42." || done.Usage.TotalTokens == 0 {
		t.Fatalf("the finished run: %d %s", resp.StatusCode, b)
	}

	// A second run waits on the model until stopped.
	resp, b = serveCall(t, s, http.MethodPost, "/v1/runs", `{"input": "take your time"}`)
	var slow struct{ ID string }
	json.Unmarshal(b, &slow)
	<-srv.Hanging()
	resp, b = serveCall(t, s, http.MethodGet, "/health/detailed", "")
	if !strings.Contains(string(b), `"active_runs":1`) || resp.StatusCode != 200 {
		t.Fatalf("detailed health: %d %s", resp.StatusCode, b)
	}
	resp, b = serveCall(t, s, http.MethodPost, "/v1/runs/"+slow.ID+"/stop", "")
	if resp.StatusCode != 200 || !strings.Contains(string(b), `"status":"cancelled"`) {
		t.Fatalf("stop: %d %s", resp.StatusCode, b)
	}
	s.stop(t)

	srv.Enqueue(llmtest.Reply{Text: "You asked about your notes."})
	r := hermes(t, home, work, "-z", "What did I ask?", "--resume", created.SessionID, "--provider", "custom", "--base-url", srv.URL(), "--model", "test-model")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "You asked about your notes." {
		t.Fatalf("resume in the CLI: %d %s %s", r.code, r.stdout, r.stderr)
	}
	reqs := srv.Requests()
	if sent := reqs[len(reqs)-1].Messages(); len(sent) != 6 || sent[1].Content != "what do my notes say?" {
		t.Fatalf("the CLI's resumed turn sent %d messages: %+v", len(sent), sent)
	}
}

// A client of hermes serve starts a run that asks it about approvals:
// the request arrives on the run's event stream, the run waits in
// requires_action, and approving once lets the command run; the run is
// listed by GET /v1/runs.
func TestHermesServeRunApprovedOnce(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue(
		llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "terminal", Arguments: `{"command":"rm -rf build && echo removed-it"}`}}},
		llmtest.Reply{Text: "Deleted."},
	)
	home, work := t.TempDir(), t.TempDir()
	victim := filepath.Join(work, "build")
	os.Mkdir(victim, 0o755)
	s := startServe(t, home, work, []string{"API_SERVER_KEY=sk-serve-test"},
		"--provider", "custom", "--base-url", srv.URL(), "--model", "test-model")

	resp, b := serveCall(t, s, http.MethodGet, "/v1/capabilities", "")
	var caps struct{ Features map[string]bool }
	if json.Unmarshal(b, &caps); resp.StatusCode != 200 || !caps.Features["run_approval"] || !caps.Features["run_list"] {
		t.Fatalf("capabilities %d %s", resp.StatusCode, b)
	}
	resp, b = serveCall(t, s, http.MethodPost, "/v1/runs", `{"input": "delete build", "approvals": "client"}`)
	var created struct{ ID string }
	if json.Unmarshal(b, &created); resp.StatusCode != 202 || created.ID == "" {
		t.Fatalf("POST /v1/runs: %d %s", resp.StatusCode, b)
	}

	req, _ := http.NewRequest(http.MethodGet, "http://"+s.addr+"/v1/runs/"+created.ID+"/events", nil)
	req.Header.Set("Authorization", "Bearer sk-serve-test")
	er, err := http.DefaultClient.Do(req)
	if err != nil || er.StatusCode != 200 {
		t.Fatalf("events: %v %v", er, err)
	}
	defer er.Body.Close()
	sc := bufio.NewScanner(er.Body)
	var kinds []string
	var approvalID, resolvedChoice string
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var e struct {
			Type, Command, Choice string
			ApprovalID            string `json:"approval_id"`
		}
		json.Unmarshal([]byte(data), &e)
		if e.Type == "message.delta" && kinds[len(kinds)-1] == e.Type {
			continue
		}
		kinds = append(kinds, e.Type)
		switch e.Type {
		case "approval.requested":
			if !strings.Contains(e.Command, "rm -rf build") {
				t.Fatalf("approval.requested %s", data)
			}
			approvalID = e.ApprovalID
			resp, b := serveCall(t, s, http.MethodGet, "/v1/runs/"+created.ID, "")
			if resp.StatusCode != 200 || !strings.Contains(string(b), `"status":"requires_action"`) || !strings.Contains(string(b), approvalID) {
				t.Fatalf("the waiting run: %d %s", resp.StatusCode, b)
			}
			if _, err := os.Stat(victim); err != nil {
				t.Fatal("the command ran before it was approved")
			}
			resp, b = serveCall(t, s, http.MethodPost, "/v1/runs/"+created.ID+"/approval",
				`{"approval_id": "`+approvalID+`", "choice": "once"}`)
			if resp.StatusCode != 200 {
				t.Fatalf("approving: %d %s", resp.StatusCode, b)
			}
		case "approval.resolved":
			resolvedChoice = e.Choice
		}
	}
	if got := strings.Join(kinds, " "); got != "run.started tool.started approval.requested approval.resolved tool.completed message.delta run.completed" ||
		resolvedChoice != "once" {
		t.Fatalf("events %s (resolved %q)", got, resolvedChoice)
	}
	if _, err := os.Stat(victim); !os.IsNotExist(err) {
		t.Fatalf("the approved command did not run: %v", err)
	}
	reqs := srv.Requests()
	if msgs := reqs[len(reqs)-1].Messages(); !strings.Contains(msgs[len(msgs)-1].Content, "removed-it") {
		t.Fatalf("the model read %q", msgs[len(msgs)-1].Content)
	}
	resp, b = serveCall(t, s, http.MethodGet, "/v1/runs?limit=5", "")
	var list struct {
		Object  string
		Data    []struct{ ID, Status string }
		FirstID string `json:"first_id"`
	}
	if json.Unmarshal(b, &list); resp.StatusCode != 200 || list.Object != "list" || len(list.Data) != 1 ||
		list.Data[0].ID != created.ID || list.Data[0].Status != "completed" || list.FirstID != created.ID {
		t.Fatalf("GET /v1/runs: %d %s", resp.StatusCode, b)
	}
}
