package e2e

import (
	"bufio"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/hermes-go/hermes/llm/llmtest"
)

const webhookConfig = `webhooks:
  routes:
    github:
      secret_env: GITHUB_HOOK_SECRET
      prompt: "Summarise the push to {repository.full_name}: {head_commit.message}"
      events: [push]
`

// hookPost sends a delivery to a running hermes serve, signed with
// secret ("" leaves it unsigned).
func hookPost(t *testing.T, s *served, route, secret, body string, header ...string) (*http.Response, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, "http://"+s.addr+"/webhooks/"+route, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if secret != "" {
		mac := hmac.New(sha256.New, []byte(secret))
		mac.Write([]byte(body))
		req.Header.Set("X-Hub-Signature-256", "sha256="+hex.EncodeToString(mac.Sum(nil)))
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var m map[string]any
	json.Unmarshal(b, &m)
	return resp, m
}

// hermes serve with a webhooks block in config.yaml: an unsigned or
// wrongly signed delivery gets 401 and the model nothing; a signed push
// runs, followed through the Runs API, the payload's fields quoted in
// the untrusted-data fence; the same delivery again, also after a
// restart, is answered with the first run and runs nothing. Without an
// API key the server serves the webhooks and refuses the rest; a route
// whose secret variable is unset keeps it from starting.
func TestHermesServeWebhooks(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Reply{Text: "octo/hello got a parser fix."})
	home, work := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(home, "config.yaml"), []byte(webhookConfig), 0o600)
	model := []string{"--provider", "custom", "--base-url", srv.URL(), "--model", "test-model"}

	// The secret's variable unset: refused before listening.
	r := hermesEnv(t, []string{"API_SERVER_KEY=sk-serve-test"}, home, work, append([]string{"serve", "--listen", "127.0.0.1:0"}, model...)...)
	if r.code != 2 || !strings.Contains(r.stderr, "webhooks.routes.github: its secret comes from GITHUB_HOOK_SECRET, which is not set") {
		t.Fatalf("serve without the secret: %d\n%s", r.code, r.stderr)
	}

	env := []string{"API_SERVER_KEY=sk-serve-test", "GITHUB_HOOK_SECRET=e2e-secret"}
	s := startServe(t, home, work, env, model...)
	push := `{"repository":{"full_name":"octo/hello"},"head_commit":{"message":"fix the parser"}}`
	for _, secret := range []string{"", "wrong-secret"} {
		resp, body := hookPost(t, s, "github", secret, push, "X-GitHub-Event", "push", "X-GitHub-Delivery", "e2e-delivery")
		if resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("secret %q: %d %v", secret, resp.StatusCode, body)
		}
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("a refused delivery reached the model (%d requests)", n)
	}

	resp, body := hookPost(t, s, "github", "e2e-secret", push, "X-GitHub-Event", "push", "X-GitHub-Delivery", "e2e-delivery")
	id, _ := body["id"].(string)
	if resp.StatusCode != http.StatusAccepted || !strings.HasPrefix(id, "run_") || resp.Header.Get("Location") != "/v1/runs/"+id {
		t.Fatalf("signed push: %d %v", resp.StatusCode, body)
	}
	// Followed like any run: the event stream to its end, then the run.
	resp, b := serveCall(t, s, http.MethodGet, "/v1/runs/"+id+"/events", "")
	if resp.StatusCode != 200 || !strings.Contains(string(b), "event: run.completed") {
		t.Fatalf("events: %d %s", resp.StatusCode, b)
	}
	resp, b = serveCall(t, s, http.MethodGet, "/v1/runs/"+id, "")
	var run struct {
		Status, Output string
		Webhook        struct {
			Route      string
			DeliveryID string `json:"delivery_id"`
		}
	}
	if json.Unmarshal(b, &run); resp.StatusCode != 200 || run.Status != "completed" || run.Output != "octo/hello got a parser fix." ||
		run.Webhook.Route != "github" || run.Webhook.DeliveryID != "e2e-delivery" {
		t.Fatalf("the run: %d %s", resp.StatusCode, b)
	}
	sent := srv.Requests()[0].Messages()
	user := sent[len(sent)-1].Content
	instructions, data, ok := strings.Cut(user, `<untrusted-webhook-data route="github">`)
	if !ok || strings.Contains(instructions, "octo/hello") || !strings.Contains(data, `"repository.full_name": "octo/hello"`) ||
		!strings.Contains(data, `"head_commit.message": "fix the parser"`) {
		t.Fatalf("the model read:\n%s", user)
	}

	resp, body = hookPost(t, s, "github", "e2e-secret", push, "X-GitHub-Event", "push", "X-GitHub-Delivery", "e2e-delivery")
	if resp.StatusCode != http.StatusAccepted || body["id"] != id || body["duplicate"] != true {
		t.Fatalf("the replay: %d %v", resp.StatusCode, body)
	}
	s.stop(t)

	// Restarted, without an API key: the webhooks and /health are served,
	// the rest refused; the delivery is still known.
	s = startServe(t, home, work, []string{"GITHUB_HOOK_SECRET=e2e-secret"}, model...)
	resp, body = hookPost(t, s, "github", "e2e-secret", push, "X-GitHub-Event", "push", "X-GitHub-Delivery", "e2e-delivery")
	if resp.StatusCode != http.StatusAccepted || body["id"] != id || body["duplicate"] != true {
		t.Fatalf("the replay after a restart: %d %v", resp.StatusCode, body)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Fatalf("the model got %d requests, want the one run", n)
	}
	if resp, err := http.Get("http://" + s.addr + "/health"); err != nil || resp.StatusCode != 200 {
		t.Fatalf("/health without a key: %v %v", resp, err)
	}
	resp, b = serveCall(t, s, http.MethodPost, "/v1/runs", `{"input":"hi"}`)
	if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(string(b), "API_SERVER_KEY") {
		t.Fatalf("POST /v1/runs on a server without a key: %d %s", resp.StatusCode, b)
	}
	if !strings.Contains(s.stderr.String(), "webhooks (POST /webhooks/NAME): github") {
		t.Fatalf("the server's log:\n%s", s.stderr)
	}
}

// hermes gateway with webhooks and no chat platform serves the API
// server for them: a signed delivery runs and is followed with the key.
func TestHermesGatewayServesWebhooks(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Reply{Text: "seen from the gateway"})
	home, work := t.TempDir(), t.TempDir()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	os.WriteFile(filepath.Join(home, "config.yaml"), []byte(webhookConfig+fmt.Sprintf("gateway:\n  api_server:\n    port: %d\n", port)), 0o600)
	cmd := exec.Command(hermesBin, "gateway", "--provider", "custom", "--base-url", srv.URL(), "--api-key", "x", "--model", "m")
	cmd.Dir = work
	cmd.Env = []string{"HOME=" + home, "HERMES_HOME=" + home, "PATH=" + os.Getenv("PATH"), "HERMES_LOCAL_PORTS=none",
		"API_SERVER_KEY=sk-serve-test", "GITHUB_HOOK_SECRET=gw-secret"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &served{cmd: cmd, stderr: &logText{}}
	t.Cleanup(func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); cmd.Wait() })
	sc := bufio.NewScanner(pipe)
	for sc.Scan() {
		s.stderr.WriteString(sc.Text() + "\n")
		if addr, ok := strings.CutPrefix(sc.Text(), "hermes: API server listening on http://"); ok {
			s.addr, _, _ = strings.Cut(addr, " ")
			break
		}
	}
	if s.addr == "" {
		t.Fatalf("hermes gateway did not serve the webhooks:\n%s", s.stderr)
	}
	go io.Copy(io.Discard, pipe)

	push := `{"repository":{"full_name":"octo/gw"},"head_commit":{"message":"m"}}`
	resp, body := hookPost(t, s, "github", "gw-secret", push, "X-GitHub-Event", "push", "X-GitHub-Delivery", "gw-1")
	id, _ := body["id"].(string)
	if resp.StatusCode != http.StatusAccepted || id == "" {
		t.Fatalf("signed push: %d %v", resp.StatusCode, body)
	}
	serveCall(t, s, http.MethodGet, "/v1/runs/"+id+"/events", "")
	resp, b := serveCall(t, s, http.MethodGet, "/v1/runs/"+id, "")
	if resp.StatusCode != 200 || !strings.Contains(string(b), `"output":"seen from the gateway"`) {
		t.Fatalf("the run: %d %s", resp.StatusCode, b)
	}
}
