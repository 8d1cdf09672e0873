package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
)

// The model writes one script that reads two files through hermes_tools
// and prints what it found: one execute_code call in place of two
// read_file calls, its printout the tool result the model reads.
func TestExecuteCodeReadsTwoFilesInOneScript(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not installed")
	}
	home, work := t.TempDir(), t.TempDir()
	for name, body := range map[string]string{"a.txt": "apples\n", "b.txt": "bananas\n"} {
		if err := os.WriteFile(filepath.Join(work, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	script := `from hermes_tools import read_file
a = read_file(path="a.txt")
b = read_file(path="b.txt")
print("A:", "apples" in a, "B:", "bananas" in b)
`
	args, _ := json.Marshal(map[string]string{"code": script})
	srv := llmtest.NewServer(t)
	srv.Handle(func(r *llmtest.Request) llmtest.Reply {
		msgs := r.Messages()
		switch last := msgs[len(msgs)-1]; {
		case last.Role == llm.RoleTool:
			return llmtest.Reply{Text: "Both files hold fruit."}
		case strings.Contains(last.Content, "what do a.txt and b.txt hold?"):
			return llmtest.Reply{ToolCalls: []llm.ToolCall{{ID: "call_1", Name: "execute_code", Arguments: string(args)}}}
		}
		return llmtest.Reply{Text: "A title"}
	})
	// The terminal's chat offers execute_code (a one-shot run keeps its
	// first request small and does not).
	r := hermesIn(t, "what do a.txt and b.txt hold?\n", home, work, "chat", "--provider", "custom", "--base-url", srv.URL(), "--model", "m")
	if r.code != 0 || !strings.Contains(r.stdout+r.stderr, "Both files hold fruit.") {
		t.Fatalf("exit %d\nstdout %q\nstderr %s", r.code, r.stdout, r.stderr)
	}
	var reqs []*llmtest.Request
	for _, req := range srv.Requests() {
		for _, d := range req.Tools() {
			if d.Name == "execute_code" {
				reqs = append(reqs, req)
				break
			}
		}
	}
	if len(reqs) != 2 {
		t.Fatalf("%d model calls offering execute_code, want 2", len(reqs))
	}
	var offered bool
	for _, d := range reqs[0].Tools() {
		if d.Name == "execute_code" {
			offered = strings.Contains(d.Description, "read_file(path: str")
		}
	}
	if !offered {
		t.Fatal("execute_code is not offered with the read_file signature")
	}
	results := toolResults(reqs[1])
	if len(results) != 1 {
		t.Fatalf("tool results %q", results)
	}
	var res struct {
		ExitCode  int    `json:"exit_code"`
		Stdout    string `json:"stdout"`
		ToolCalls []struct {
			Tool string `json:"tool"`
			OK   bool   `json:"ok"`
		} `json:"tool_calls"`
	}
	if err := json.Unmarshal([]byte(results[0]), &res); err != nil {
		t.Fatalf("result is not JSON: %v\n%s", err, results[0])
	}
	if res.ExitCode != 0 || res.Stdout != "A: True B: True\n" || len(res.ToolCalls) != 2 || !res.ToolCalls[0].OK || res.ToolCalls[1].Tool != "read_file" {
		t.Fatalf("result %s", results[0])
	}
}

// A one-shot run offers execute_code only when --toolsets names it.
func TestOneShotOffersExecuteCodeWhenToolsetsNameIt(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not installed")
	}
	home, work := t.TempDir(), t.TempDir()
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Reply{Text: "plain"}, llmtest.Reply{Text: "named"})
	for _, args := range [][]string{{}, {"--toolsets", "code,file"}} {
		base := []string{"-z", "hello", "--provider", "custom", "--base-url", srv.URL(), "--model", "m"}
		if r := hermes(t, home, work, append(base, args...)...); r.code != 0 {
			t.Fatalf("%v: exit %d %s", args, r.code, r.stderr)
		}
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	if offered(reqs[0])["execute_code"] {
		t.Error("a plain one-shot run offers execute_code")
	}
	if got := offered(reqs[1]); !got["execute_code"] || !got["read_file"] || got["terminal"] {
		t.Errorf("--toolsets code,file offered %v", got)
	}
}
