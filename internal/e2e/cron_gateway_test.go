package e2e

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
)

// Cron jobs deliver to chat platforms on every platform of the suite:
// from inside hermes gateway, from hermes cron run with no gateway up
// (to the home channel), and, when the platform is not taking messages,
// through the ledger the gateway then delivers from.
func TestCronDeliversToChatPlatforms(t *testing.T) {
	for _, p := range chatPlatforms {
		t.Run(p.name, func(t *testing.T) {
			fake := p.start(t)
			srv := llmtest.NewServer(t)
			srv.Handle(func(r *llmtest.Request) llmtest.Reply {
				if texts := userTexts(r); len(texts) > 0 && strings.Contains(texts[len(texts)-1], "pulse") {
					return llmtest.Reply{Text: "Pulse: all green"}
				}
				return llmtest.Reply{Text: "Report: 3 open PRs"}
			})
			home, work := t.TempDir(), t.TempDir()
			team := string(fake.group())
			env := append(fake.env(), strings.ToUpper(p.name)+"_HOME_CHANNEL="+team)
			if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte("cron:\n  delivery_timeout: 1\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			count := func(what string) int {
				n := 0
				for _, m := range fake.messages(fake.group()) {
					if strings.Contains(m.Text, what) {
						n++
					}
				}
				return n
			}
			reports := func() int { return count("Report: 3 open PRs") }

			// hermes cron run, no gateway up: the home channel gets it.
			r := hermesEnv(t, env, home, work, "cron", "add", "--name", "home", "--schedule", "every 1h", "--prompt", "summarise the PRs", "--deliver", p.name)
			homeJob := strings.TrimSpace(r.stdout)
			if r.code != 0 {
				t.Fatalf("add: %d %s", r.code, r.stderr)
			}
			r = hermesEnv(t, env, home, work, append([]string{"cron", "run", homeJob}, cronModel(srv)...)...)
			if r.code != 0 || !strings.Contains(r.stdout, ": ok") {
				t.Fatalf("cron run to the home channel: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
			}
			if n := reports(); n != 1 {
				t.Fatalf("the home channel got %d reports, want 1", n)
			}

			// The platform rate limits past the delivery timeout: the run
			// is delivery_failed, its answer kept, and the row stays owed
			// in the ledger.
			fake.rateLimitNextSend(2)
			r = hermesEnv(t, env, home, work, append([]string{"cron", "run", homeJob}, cronModel(srv)...)...)
			if r.code == 0 || !strings.Contains(r.stdout, "delivery_failed") {
				t.Fatalf("a delivery held by a rate limit: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
			}
			outs, _ := filepath.Glob(filepath.Join(home, "cron", "output", homeJob, "*.md"))
			if len(outs) != 2 {
				t.Fatalf("output files %v", outs)
			}

			// A job on a 1-second schedule, to a chat: hermes gateway runs
			// the scheduler, and its ledger also sends the owed report.
			r = hermesEnv(t, env, home, work, "cron", "add", "--name", "pulse", "--schedule", "every 1s", "--prompt", "pulse", "--deliver", p.name+":"+team)
			if r.code != 0 {
				t.Fatalf("add: %d %s", r.code, r.stderr)
			}
			pulse := strings.TrimSpace(r.stdout)
			g := startGateway(t, home, work, srv.URL(), p.name, env)
			if !fake.waitFor(gatewayWait, func() bool { return reports() == 2 && count("Pulse: all green") >= 2 }) {
				t.Fatalf("the team got %d reports (want the first and the owed one) and %d pulses (want 2 or more)", reports(), count("Pulse: all green"))
			}
			if fake.earlyRetries() != 0 {
				t.Fatalf("%d sends before the rate limit had passed", fake.earlyRetries())
			}
			if code := g.stop(t); code != 0 {
				t.Fatalf("gateway exit %d", code)
			}
			if n := reports(); n != 2 {
				t.Fatalf("after the gateway stopped the team had %d reports, want 2", n)
			}
			r = hermesEnv(t, env, home, work, "cron", "history", pulse, "--json")
			var runs []map[string]any
			if err := json.Unmarshal([]byte(r.stdout), &runs); err != nil || len(runs) == 0 {
				t.Fatalf("history: %v %q %s", err, r.stdout, r.stderr)
			}
			ok := 0
			for _, run := range runs {
				if run["status"] == "ok" {
					ok++
				}
			}
			if ok == 0 {
				t.Fatalf("no run of the 1-second job was ok: %v", runs)
			}
			var recovered int
			for _, m := range fake.messages(fake.group()) {
				if strings.HasPrefix(m.Text, "(recovered)") {
					recovered++
				}
			}
			if recovered != 0 {
				t.Fatalf("%d reports marked recovered: nothing crashed", recovered)
			}
		})
	}
}

// A webhook route whose target is a platform delivers the run's answer
// to that platform's home channel, from inside hermes gateway, on every
// platform of the suite.
func TestWebhookRunsDeliverToChatPlatforms(t *testing.T) {
	for _, p := range chatPlatforms {
		t.Run(p.name, func(t *testing.T) {
			fake := p.start(t)
			srv := llmtest.NewServer(t)
			srv.Handle(func(*llmtest.Request) llmtest.Reply { return llmtest.Reply{Text: "Push to octo/gw: fix the build"} })
			home, work := t.TempDir(), t.TempDir()
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			port := ln.Addr().(*net.TCPAddr).Port
			ln.Close()
			conf := strings.Replace(webhookConfig, "      events: [push]\n", "      events: [push]\n      deliver: "+p.name+"\n", 1)
			if !strings.Contains(conf, "deliver: ") {
				t.Fatal("the route has no target")
			}
			os.WriteFile(filepath.Join(home, "config.yaml"), []byte(conf+fmt.Sprintf("gateway:\n  api_server:\n    port: %d\n", port)), 0o600)
			env := append(fake.env(), strings.ToUpper(p.name)+"_HOME_CHANNEL="+string(fake.group()),
				"GITHUB_HOOK_SECRET=gw-secret", "API_SERVER_KEY=sk-serve-test")
			g := startGateway(t, home, work, srv.URL(), p.name, env)
			g.waitLog(t, "hermes: API server listening on http://", 1)
			s := &served{addr: fmt.Sprintf("127.0.0.1:%d", port)}

			push := `{"repository":{"full_name":"octo/gw"},"head_commit":{"message":"fix the build"}}`
			resp, body := hookPost(t, s, "github", "gw-secret", push, "X-GitHub-Event", "push", "X-GitHub-Delivery", "d-1")
			id, _ := body["id"].(string)
			if resp.StatusCode != http.StatusAccepted || id == "" {
				t.Fatalf("signed push: %d %v", resp.StatusCode, body)
			}
			delivered := func() int {
				n := 0
				for _, m := range fake.messages(fake.group()) {
					if strings.Contains(m.Text, "Push to octo/gw: fix the build") {
						n++
					}
				}
				return n
			}
			if !fake.waitFor(gatewayWait, func() bool { return delivered() == 1 }) {
				t.Fatalf("the home channel got %d answers, want 1", delivered())
			}
			serveCall(t, s, http.MethodGet, "/v1/runs/"+id+"/events", "")
			_, b := serveCall(t, s, http.MethodGet, "/v1/runs/"+id, "")
			var run struct {
				Webhook struct {
					Delivery struct{ Target, Status, Error string } `json:"delivery"`
				} `json:"webhook"`
			}
			if err := json.Unmarshal(b, &run); err != nil || run.Webhook.Delivery.Status != "delivered" || run.Webhook.Delivery.Target != p.name {
				t.Fatalf("the run's delivery: %v %s", err, b)
			}
			// The same delivery again runs nothing and posts nothing.
			resp, body = hookPost(t, s, "github", "gw-secret", push, "X-GitHub-Event", "push", "X-GitHub-Delivery", "d-1")
			if resp.StatusCode != http.StatusAccepted || body["id"] != id {
				t.Fatalf("the replay: %d %v", resp.StatusCode, body)
			}
			if code := g.stop(t); code != 0 {
				t.Fatalf("gateway exit %d", code)
			}
			if n := delivered(); n != 1 {
				t.Fatalf("after the replay the home channel has %d answers", n)
			}
		})
	}
}

// In the terminal's chat the agent may schedule a job; its answers are
// kept locally unless asked otherwise. A one-shot run is not offered the
// tool.
func TestTheAgentSchedulesAJobFromTheTerminal(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Handle(func(r *llmtest.Request) llmtest.Reply {
		msgs := r.Messages()
		switch last := msgs[len(msgs)-1]; {
		case last.Role == llm.RoleTool:
			return llmtest.Reply{Text: "Scheduled."}
		case strings.Contains(last.Content, "every morning, report the disk usage"):
			return llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "cronjob", Arguments: `{"action":"create","name":"disk","schedule":"every day at 8am","prompt":"report the disk usage"}`}}}
		}
		return llmtest.Reply{Text: "a title, or the one-shot's answer"}
	})
	home, work := t.TempDir(), t.TempDir()
	model := []string{"--provider", "custom", "--base-url", srv.URL(), "--model", "m"}
	r := hermesIn(t, "every morning, report the disk usage\n", home, work, append([]string{"chat"}, model...)...)
	if r.code != 0 || !strings.Contains(r.stdout+r.stderr, "Scheduled.") {
		t.Fatalf("chat: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	r = hermes(t, home, work, "cron", "list", "--json")
	var jobs []map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &jobs); err != nil || len(jobs) != 1 || jobs[0]["name"] != "disk" || jobs[0]["deliver"] != "local" {
		t.Fatalf("the scheduled job: %v %s", err, r.stdout)
	}
	r = hermes(t, home, work, append([]string{"-z", "hi"}, model...)...)
	if r.code != 0 {
		t.Fatalf("one-shot: %d %s", r.code, r.stderr)
	}
	oneShot := 0
	for _, req := range srv.Requests() {
		if u := userTexts(req); len(u) == 0 || u[len(u)-1] != "hi" {
			continue
		}
		oneShot++
		for _, d := range req.Tools() {
			if d.Name == "cronjob" {
				t.Fatal("a one-shot run was offered cronjob")
			}
		}
	}
	if oneShot == 0 {
		t.Fatal("the one-shot run's request was not found")
	}
}
