package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// embedder is a program outside the module: it imports only public
// packages, gets the runtime the CLI runs, opens a conversation on it and
// runs a turn with a tool of its own against llmtest, through a fallback.
const embedder = `package main

import (
	"context"
	"encoding/json"
	"os"

	"github.com/hermes-go/hermes/agent"
	"github.com/hermes-go/hermes/app"
	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
	"github.com/hermes-go/hermes/tool"
)

type city struct {
	Name string ` + "`json:\"city\"`" + `
}

func main() {
	primary, backup := llmtest.NewServer(nil), llmtest.NewServer(nil)
	defer primary.Close()
	defer backup.Close()
	primary.Enqueue(llmtest.Error(429, ""))
	backup.Enqueue(
		llmtest.Reply{ToolCalls: []llm.ToolCall{{ID: "c1", Name: "weather", Arguments: ` + "`{\"city\":\"Lisbon\"}`" + `}}},
		llmtest.Reply{Text: "Sunny in Lisbon."},
	)
	cfg, err := app.LoadConfig(os.Getenv)
	if err != nil {
		panic(err)
	}
	cfg.Provider, cfg.BaseURL, cfg.APIKey, cfg.Model.Name = "custom", primary.URL(), "sk-test", "primary-model"
	cfg.Providers = map[string]config.ProviderConf{"spare": {BaseURL: backup.URL(), KeyEnv: "SPARE_KEY"}}
	cfg.FallbackProviders = []config.FallbackProvider{{Provider: "spare", Model: "backup-model"}}
	weather := tool.Must(tool.New(tool.Spec{Name: "weather", Description: "Current weather in a city."},
		func(ctx context.Context, c tool.Call, a city) (tool.Result, error) { return tool.Text("sunny in " + a.Name), nil }))

	rt, err := app.New(context.Background(), cfg, app.Options{Source: "embedder", Tools: []tool.Tool{weather}})
	if err != nil {
		panic(err)
	}
	defer rt.Close()
	c, err := rt.Open(context.Background(), app.ConversationOptions{})
	if err != nil {
		panic(err)
	}
	defer c.Close()
	res, err := c.Run(context.Background(), agent.Input{Message: "What is the weather in Lisbon?"})
	if err != nil {
		panic(err)
	}
	var offered []string
	for _, d := range backup.Requests()[0].Tools() {
		offered = append(offered, d.Name)
	}
	json.NewEncoder(os.Stdout).Encode(map[string]any{
		"answer": res.FinalResponse, "completed": res.Completed, "model": res.Model, "provider": res.Provider,
		"session": res.SessionID, "offered": offered, "compressor": c.ContextLength() > 0,
	})
}
`

func TestAProgramOutsideTheModuleGetsTheCLIAgent(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program")
	}
	_, file, _, _ := runtime.Caller(0)
	root, _ := filepath.Abs(filepath.Join(filepath.Dir(file), "..", ".."))
	dir := t.TempDir()
	mod := "module example.com/embedder\n\ngo 1.26\n\nrequire github.com/hermes-go/hermes v0.0.0\n\nreplace github.com/hermes-go/hermes => " + root + "\n"
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string][]byte{"go.mod": []byte(mod), "go.sum": sum, "main.go": []byte(embedder)} {
		if err := os.WriteFile(filepath.Join(dir, name), body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	home := t.TempDir()
	run := exec.Command("go", "run", ".")
	run.Dir = dir
	// Offline: every module comes from the cache the repository's own build filled.
	run.Env = append(os.Environ(), "HERMES_HOME="+home, "SPARE_KEY=sk-spare", "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")
	out, err := run.Output()
	if err != nil {
		var stderr string
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("go run: %v\n%s", err, stderr)
	}
	var got struct {
		Answer, Model, Provider, Session string
		Completed, Compressor            bool
		Offered                          []string
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if !got.Completed || got.Answer != "Sunny in Lisbon." || got.Model != "backup-model" || got.Provider != "spare" || !got.Compressor {
		t.Fatalf("embedder got %+v", got)
	}
	for _, want := range []string{"weather", "terminal", "read_file", "patch", "memory", "todo", "skill_manage", "delegate_task"} {
		if !slices.Contains(got.Offered, want) {
			t.Errorf("%s not offered to the model: %v", want, got.Offered)
		}
	}
	// The session is in the same SQLite store the CLI reads.
	r := hermes(t, home, t.TempDir(), "sessions", "list", "--json")
	if r.code != 0 || !strings.Contains(r.stdout, got.Session) || !strings.Contains(r.stdout, `"embedder"`) {
		t.Fatalf("hermes sessions list: %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}
