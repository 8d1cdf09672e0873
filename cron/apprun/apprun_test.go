package apprun_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/app"
	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/cron"
	"github.com/hermes-go/hermes/cron/apprun"
	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
)

func runtimeFor(t *testing.T, url string) (*app.Runtime, string) {
	t.Helper()
	cfg := config.Default()
	cfg.Home = t.TempDir()
	cfg.Provider, cfg.BaseURL, cfg.APIKey, cfg.Model.Name = "custom", url, "sk-test", "test-model"
	work := t.TempDir()
	rt, err := app.New(context.Background(), cfg, app.Options{Workdir: work, Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	return rt, work
}

func toolNames(c *app.Conversation) []string {
	var out []string
	for _, d := range c.ToolDefs() {
		out = append(out, d.Name)
	}
	return out
}

// A dangerous command in a cron run is denied, the model reads why, the
// command does not run, and the run's status is denied.
func TestADangerousCommandInACronRunIsDenied(t *testing.T) {
	srv := llmtest.NewServer(t)
	rt, work := runtimeFor(t, srv.URL())
	victim := filepath.Join(work, "keep")
	os.MkdirAll(filepath.Join(victim, "sub"), 0o755)
	srv.Enqueue(llmtest.Reply{ToolCalls: []llm.ToolCall{{ID: "c1", Name: "terminal", Arguments: `{"command":"rm -rf ` + victim + `"}`}}})
	srv.Enqueue(llmtest.Reply{Text: "I could not delete it."})
	home := rt.Config().Home
	st, err := cron.Open(cron.StorePath(home))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s, _ := cron.ParseSchedule("every 1h", time.Now(), nil)
	j, err := st.Add(context.Background(), cron.Job{Name: "cleanup", Schedule: s, Prompt: "delete keep", Workdir: work}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	runner := &cron.Runner{Store: st, Home: home, Exec: apprun.Executor{Runtime: func(context.Context, cron.Job) (*app.Runtime, error) { return rt, nil }}}
	run, err := runner.RunNow(context.Background(), j)
	if err != nil {
		t.Fatal(err)
	}
	if run.Status != cron.StatusDenied || !strings.Contains(run.Error, "rm -rf") {
		t.Fatalf("run %+v", run)
	}
	if _, err := os.Stat(victim); err != nil {
		t.Fatalf("the command ran: %v", err)
	}
	reqs := srv.Requests()
	last := reqs[len(reqs)-1].Messages()
	var result string
	for _, m := range last {
		if m.Role == llm.RoleTool {
			result = m.Content
		}
	}
	if !strings.Contains(result, "nobody is there to approve") || !strings.Contains(result, "do not retry") {
		t.Fatalf("the model read %q", result)
	}
	if run.SessionID == "" {
		t.Fatal("no session id")
	}
}

// The cronjob tool is offered in a chat, never in a cron run, even one
// whose toolsets name it.
func TestTheCronjobToolIsNotOfferedInCronRuns(t *testing.T) {
	srv := llmtest.NewServer(t)
	rt, _ := runtimeFor(t, srv.URL())
	chat, err := rt.Open(context.Background(), app.ConversationOptions{Source: "telegram", Origin: "telegram:42"})
	if err != nil {
		t.Fatal(err)
	}
	defer chat.Close()
	if !slices.Contains(toolNames(chat), "cronjob") {
		t.Fatalf("a chat lacks cronjob: %v", toolNames(chat))
	}
	srv.Enqueue(llmtest.Reply{Text: "ok"})
	exec := apprun.Executor{Runtime: func(context.Context, cron.Job) (*app.Runtime, error) { return rt, nil }}
	if _, err := exec.Execute(context.Background(), cron.Job{Name: "x", Prompt: "hi", Toolsets: []string{"cronjob", "terminal"}}); err != nil {
		t.Fatal(err)
	}
	for _, d := range srv.Requests()[0].Tools() {
		if d.Name == "cronjob" {
			t.Fatal("a cron run was offered cronjob")
		}
	}
}
