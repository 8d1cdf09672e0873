package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hermes-go/hermes/llm/llmtest"
)

// cronModel are the model flags every cron command here takes.
func cronModel(srv *llmtest.Server) []string {
	return []string{"--provider", "custom", "--base-url", srv.URL(), "--model", "test-model"}
}

func TestCronAddListAndRunThroughTheBinary(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.RequireKey("sk-job-secret")
	srv.Handle(func(*llmtest.Request) llmtest.Reply { return llmtest.Reply{Text: "nightly summary: all green"} })
	home, work := t.TempDir(), t.TempDir()
	args := append([]string{"cron", "add", "--name", "nightly", "--schedule", "every 5s", "--prompt", "summarise",
		"--deliver", "local", "--api-key", "sk-job-secret"}, cronModel(srv)...)
	r := hermes(t, home, work, args...)
	id := strings.TrimSpace(r.stdout)
	if r.code != 0 || len(id) == 0 || strings.Contains(id, " ") {
		t.Fatalf("add: exit %d stdout %q stderr %s", r.code, r.stdout, r.stderr)
	}
	r = hermes(t, home, work, "cron", "add", "--json", "--name", "to-chat", "--schedule", "0 9 * * 1-5", "--prompt", "p", "--deliver", "telegram")
	var added map[string]any
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &added) != nil || added["id"] == "" {
		t.Fatalf("add --json: exit %d %q %s", r.code, r.stdout, r.stderr)
	}
	chatID := added["id"].(string)

	r = hermes(t, home, work, "cron", "list", "--json")
	var jobs []map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &jobs); err != nil || len(jobs) != 2 {
		t.Fatalf("list --json: %v %q", err, r.stdout)
	}
	for _, j := range jobs {
		for _, k := range []string{"id", "name", "schedule", "next_run_at", "last_status", "last_error"} {
			if _, ok := j[k]; !ok {
				t.Fatalf("list --json lacks %s: %v", k, j)
			}
		}
		if _, err := time.Parse(time.RFC3339, j["next_run_at"].(string)); err != nil {
			t.Fatalf("next_run_at %v: %v", j["next_run_at"], err)
		}
	}
	if jobs[0]["id"] != id || jobs[0]["name"] != "nightly" || jobs[0]["schedule"] != "every 5s" {
		t.Fatalf("first job %v", jobs[0])
	}
	show := hermes(t, home, work, "cron", "show", "nightly")
	if strings.Contains(r.stdout+show.stdout, "sk-job-secret") {
		t.Fatal("the stored API key was printed")
	}

	// The job's stored key reaches the model: the server refuses others.
	r = hermes(t, home, work, "cron", "run", id)
	if r.code != 0 || !strings.Contains(r.stdout, ": ok") {
		t.Fatalf("run: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	outs, _ := filepath.Glob(filepath.Join(home, "cron", "output", id, "*.md"))
	if len(outs) != 1 {
		t.Fatalf("output files %v", outs)
	}
	if b, _ := os.ReadFile(outs[0]); string(b) != "nightly summary: all green" {
		t.Fatalf("output %q", b)
	}
	if !strings.Contains(r.stdout, outs[0]) {
		t.Fatalf("run did not name its output file: %s", r.stdout)
	}

	// A platform delivery without the gateway fails: exit non-zero,
	// delivery_failed, the answer kept.
	r = hermesEnv(t, nil, home, work, append([]string{"cron", "run", chatID, "--api-key", "sk-job-secret"}, cronModel(srv)...)...)
	if r.code == 0 || !strings.Contains(r.stdout, "delivery_failed") {
		t.Fatalf("run to telegram: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if outs, _ := filepath.Glob(filepath.Join(home, "cron", "output", chatID, "*.md")); len(outs) != 1 {
		t.Fatalf("no output kept: %v", outs)
	}
	r = hermes(t, home, work, "cron", "history", chatID, "--json")
	var hist []map[string]any
	if json.Unmarshal([]byte(r.stdout), &hist) != nil || len(hist) != 1 || hist[0]["status"] != "delivery_failed" {
		t.Fatalf("history: %s", r.stdout)
	}
	r = hermes(t, home, work, "cron", "list")
	if !strings.Contains(r.stdout, "delivery_failed") || !strings.Contains(r.stdout, "NEXT FIRE") {
		t.Fatalf("list:\n%s", r.stdout)
	}

	r = hermes(t, home, work, "cron", "add", "--name", "bad", "--schedule", "whenever", "--prompt", "p")
	if r.code != 2 || !strings.Contains(r.stderr, "every day at 9am") {
		t.Fatalf("bad schedule: exit %d %s", r.code, r.stderr)
	}
}

// daemon is a running hermes cron daemon.
type daemon struct {
	cmd    *exec.Cmd
	mu     sync.Mutex
	stderr bytes.Buffer
}

func (d *daemon) Write(p []byte) (int, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.stderr.Write(p)
}

func (d *daemon) log() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.stderr.String()
}

func startDaemon(t *testing.T, home, work string, srv *llmtest.Server) *daemon {
	t.Helper()
	d := &daemon{cmd: exec.Command(hermesBin, append([]string{"cron", "daemon"}, cronModel(srv)...)...)}
	d.cmd.Dir = work
	d.cmd.Env = []string{"HOME=" + home, "HERMES_HOME=" + home, "PATH=" + os.Getenv("PATH"), "HERMES_LOCAL_PORTS=none"}
	d.cmd.Stderr = d
	if err := d.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		d.cmd.Process.Kill()
		d.cmd.Wait()
	})
	return d
}

// poll waits for cond, up to a deadline: the daemons are other processes.
func poll(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestCronDaemonRunsAJobAndASecondDaemonTakesOverWhenTheFirstDies(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Handle(func(*llmtest.Request) llmtest.Reply { return llmtest.Reply{Text: "tick"} })
	home, work := t.TempDir(), t.TempDir()
	r := hermes(t, home, work, "cron", "add", "--name", "pulse", "--schedule", "every 1s", "--prompt", "tick", "--deliver", "local")
	id := strings.TrimSpace(r.stdout)
	if r.code != 0 {
		t.Fatalf("add: %s", r.stderr)
	}
	outputs := func() int {
		m, _ := filepath.Glob(filepath.Join(home, "cron", "output", id, "*.md"))
		return len(m)
	}
	first := startDaemon(t, home, work, srv)
	poll(t, "the first daemon's runs", func() bool { return outputs() >= 2 })
	second := startDaemon(t, home, work, srv)
	poll(t, "the second daemon to wait for the lock", func() bool { return strings.Contains(second.log(), "waiting for it to stop") })
	if strings.Contains(second.log(), "scheduler running") {
		t.Fatalf("two schedulers ran:\n%s", second.log())
	}
	first.cmd.Process.Signal(syscall.SIGKILL)
	first.cmd.Wait()
	n := outputs()
	poll(t, "the second daemon to take over", func() bool { return strings.Contains(second.log(), "scheduler running") })
	poll(t, "runs by the second daemon", func() bool { return outputs() >= n+2 })
	second.cmd.Process.Signal(syscall.SIGTERM)
	if err := second.cmd.Wait(); err != nil {
		t.Fatalf("the daemon did not stop cleanly on SIGTERM: %v\n%s", err, second.log())
	}
	r = hermes(t, home, work, "cron", "list", "--json")
	var jobs []map[string]any
	json.Unmarshal([]byte(r.stdout), &jobs)
	if len(jobs) != 1 || jobs[0]["last_status"] != "ok" {
		t.Fatalf("list after the daemons: %s", r.stdout)
	}
}
