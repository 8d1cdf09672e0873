package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/cli"
	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
)

// The five-round terminal task: each round runs a real command, and the
// model's final answer reports what the commands produced.
func TestOneShotFiveRoundTerminalTaskInEveryAPIMode(t *testing.T) {
	for _, mode := range []string{"chat_completions", "codex_responses", "anthropic_messages"} {
		t.Run(mode, func(t *testing.T) {
			srv := llmtest.NewServer(t)
			cmds := []string{"mkdir -p work", "cd work", "echo hello > greeting.txt", "cat greeting.txt | tr a-z A-Z", "ls"}
			for i, c := range cmds {
				args := fmt.Sprintf(`{"command":%q}`, c)
				srv.Enqueue(llmtest.Reply{ToolCalls: []llm.ToolCall{{ID: fmt.Sprintf("call_%d", i+1), Name: "terminal", Arguments: args}}})
			}
			srv.Enqueue(llmtest.Reply{Text: "The file says HELLO."})

			home, work := t.TempDir(), t.TempDir()
			usage := filepath.Join(t.TempDir(), "usage.json")
			base := srv.URL()
			if mode == "anthropic_messages" {
				base = srv.AnthropicURL()
			}
			r := hermes(t, home, work, "-z", "make a greeting and shout it", "--provider", "custom", "--base-url", base,
				"--model", "test-model", "--api-mode", mode, "--usage-file", usage)
			if r.code != 0 || strings.TrimSpace(r.stdout) != "The file says HELLO." {
				t.Fatalf("exit %d\nstdout %q\nstderr %s", r.code, r.stdout, r.stderr)
			}
			reqs := srv.Requests()
			if len(reqs) != 6 {
				t.Fatalf("%d requests, want 6", len(reqs))
			}
			// The last request carries every tool result, in order, after its call.
			msgs := reqs[5].Messages()
			var results []string
			for _, m := range msgs {
				if m.Role == llm.RoleTool {
					results = append(results, m.ToolCallID+"="+m.Content)
				}
			}
			if len(results) != 5 {
				t.Fatalf("tool results sent: %q", results)
			}
			for i, res := range results {
				if !strings.HasPrefix(res, fmt.Sprintf("call_%d=", i+1)) {
					t.Fatalf("result %d out of order: %q", i, res)
				}
			}
			if !strings.Contains(results[3], "HELLO") || !strings.Contains(results[4], "greeting.txt") {
				t.Fatalf("commands did not run where expected (cwd must persist): %q", results)
			}
			checkWire(t, mode, reqs)
			u := readUsage(t, usage)
			if u["api_calls"] != float64(6) || u["completed"] != true || u["exit_reason"] != "text_response" || u["task_id"] == "" {
				t.Fatalf("usage file %v", u)
			}
		})
	}
}

func TestNoProviderConfiguredExplainsHowAndExits2(t *testing.T) {
	// Something that is not a model server holds the probed port.
	other := httptest.NewServer(http.NotFoundHandler())
	defer other.Close()
	home := t.TempDir()
	usage := filepath.Join(t.TempDir(), "u.json")
	r := hermesEnv(t, []string{"HERMES_LOCAL_PORTS=" + portOf(t, other.URL)}, home, home, "-z", "hi", "--usage-file", usage)
	if r.code != 2 || !contains(r.stderr, "API_KEY", "ollama serve", "ollama pull", "--base-url") || r.stdout != "" {
		t.Fatalf("exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
	if u := readUsage(t, usage); u["completed"] != false || u["failed"] != true {
		t.Fatalf("usage file %v", u)
	}
}

func TestFailedRunExitsNonZeroAndWritesUsage(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.AllowUnexpected()
	srv.Enqueue(llmtest.Error(401, ""))
	home := t.TempDir()
	usage := filepath.Join(t.TempDir(), "u.json")
	r := hermes(t, home, home, "-z", "hi", "--provider", "custom", "--base-url", srv.URL(), "--model", "m", "--usage-file", usage)
	if r.code == 0 || r.stdout != "" {
		t.Fatalf("exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
	u := readUsage(t, usage)
	if u["completed"] != false || u["failed"] != true || u["error"] == nil {
		t.Fatalf("usage file %v", u)
	}
}

func TestChatOneshotPrintsProgressOnStderrAndAnswerOnStdout(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "terminal", Arguments: `{"command":"echo hi"}`}}}, llmtest.Reply{Text: "said hi"})
	home := t.TempDir()
	r := hermes(t, home, home, "chat", "-q", "say hi", "--oneshot", "--provider", "custom", "--base-url", srv.URL(), "--model", "m")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "said hi" || !strings.Contains(r.stderr, "terminal") {
		t.Fatalf("exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
}

func TestVersion(t *testing.T) {
	r := hermes(t, t.TempDir(), t.TempDir(), "--version")
	// Importing cli also ties this package's test cache to the CLI's code,
	// which the binary under test is built from.
	if r.code != 0 || r.stdout != "hermes "+cli.Version+"\n" {
		t.Fatalf("exit %d stdout %q", r.code, r.stdout)
	}
}

// With no flags, OPENAI_BASE_URL, OPENAI_API_KEY and HERMES_MODEL
// configure the run; config.yaml wins over the environment.
func TestEnvironmentConfiguresTheRunAndConfigWins(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Reply{Text: "env ok"}, llmtest.Reply{Text: "config ok"})
	home := t.TempDir()
	run := func() result {
		cmd := exec.Command(hermesBin, "-z", "hi")
		cmd.Dir = home
		cmd.Env = []string{"HOME=" + home, "HERMES_HOME=" + home, "PATH=" + os.Getenv("PATH"),
			"OPENAI_BASE_URL=" + srv.URL(), "OPENAI_API_KEY=sk-env-key-123", "HERMES_MODEL=env-model"}
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		return result{out.String(), errb.String(), code}
	}
	if r := run(); r.code != 0 || strings.TrimSpace(r.stdout) != "env ok" {
		t.Fatalf("exit %d stdout %q stderr %s", r.code, r.stdout, r.stderr)
	}
	req := srv.Requests()[0]
	if req.Model != "env-model" || req.APIKey() != "sk-env-key-123" {
		t.Fatalf("model %q key %q", req.Model, req.APIKey())
	}
	os.WriteFile(filepath.Join(home, "config.yaml"), []byte("model: config-model\n"), 0o600)
	if r := run(); r.code != 0 || srv.Requests()[1].Model != "config-model" {
		t.Fatalf("exit %d: config did not win over HERMES_MODEL: %q", r.code, srv.Requests()[1].Model)
	}
}

// checkWire checks what each wire format must carry: Anthropic's system
// prompt top-level and byte-identical on every call, tool results as
// tool_result blocks, at most 4 cache markers; Responses' outputs joined
// to their calls by call_id.
func checkWire(t *testing.T, mode string, reqs []*llmtest.Request) {
	t.Helper()
	switch mode {
	case "anthropic_messages":
		var first string
		for i, r := range reqs {
			sys, _ := json.Marshal(r.JSON["system"])
			if r.JSON["system"] == nil {
				t.Fatalf("request %d has no top-level system", i)
			}
			if i == 0 {
				first = string(sys)
			} else if string(sys) != first {
				t.Fatalf("request %d system bytes differ:\n%s\n%s", i, first, sys)
			}
			if n := strings.Count(string(r.Body), `"cache_control"`); n == 0 || n > 4 {
				t.Fatalf("request %d carries %d cache markers", i, n)
			}
			for _, m := range r.JSON["messages"].([]any) {
				if m.(map[string]any)["role"] == "system" {
					t.Fatalf("request %d has a system message in messages", i)
				}
			}
		}
		if n := strings.Count(string(reqs[5].Body), `"type":"tool_result"`); n != 5 {
			t.Fatalf("last request has %d tool_result blocks", n)
		}
	case "codex_responses":
		calls, outputs := map[string]bool{}, map[string]bool{}
		for _, it := range reqs[5].JSON["input"].([]any) {
			item := it.(map[string]any)
			switch item["type"] {
			case "function_call":
				calls[item["call_id"].(string)] = true
			case "function_call_output":
				outputs[item["call_id"].(string)] = true
			}
		}
		if len(calls) != 5 || len(outputs) != 5 {
			t.Fatalf("calls %v outputs %v", calls, outputs)
		}
		for id := range outputs {
			if !calls[id] {
				t.Fatalf("output %s joins no call", id)
			}
		}
	}
}
