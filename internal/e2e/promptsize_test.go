package e2e

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/llm/llmtest"
)

// firstRequestLimit is the most a default run's first request may weigh:
// system prompt, tool definitions and the message, in the Chat
// Completions format.
const firstRequestLimit = 10_000

// A default one-shot run's first request stays under 10 KB, and leaves
// out the tools a first run cannot use.
func TestOneShotFirstRequestIsUnder10KB(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Reply{Text: "ok"})
	home, work := t.TempDir(), t.TempDir()
	r := hermes(t, home, work, "-z", "hi", "--provider", "custom", "--base-url", srv.URL(), "--model", "test-model")
	if r.code != 0 {
		t.Fatalf("exit %d stderr %s", r.code, r.stderr)
	}
	req := srv.Requests()[0]
	if n := len(req.Body); n >= firstRequestLimit {
		t.Fatalf("first request is %d bytes, want under %d", n, firstRequestLimit)
	}
	var offered []string
	for _, d := range req.Tools() {
		offered = append(offered, d.Name)
	}
	for _, n := range []string{"session_search", "skills_list", "skill_view"} {
		if slices.Contains(offered, n) {
			t.Errorf("a first run offers %s: %v", n, offered)
		}
	}
	for _, n := range []string{"terminal", "process", "read_file", "write_file", "patch", "search_files", "memory", "todo", "clarify", "delegate_task", "skill_manage"} {
		if !slices.Contains(offered, n) {
			t.Errorf("a first run does not offer %s: %v", n, offered)
		}
	}
	t.Logf("first request %d bytes, %d tools", len(req.Body), len(offered))
}

// hermes prompt-size calls no model and measures what a run then sends:
// the system prompt and every tool definition, byte for byte.
func TestPromptSizeIsOfflineAndMatchesTheFirstRequest(t *testing.T) {
	srv := llmtest.NewServer(t)
	home, work := t.TempDir(), t.TempDir()
	endpoint := []string{"--provider", "custom", "--base-url", srv.URL(), "--model", "test-model"}
	r := hermes(t, home, work, append([]string{"prompt-size", "--json"}, endpoint...)...)
	if r.code != 0 {
		t.Fatalf("exit %d stderr %s", r.code, r.stderr)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("prompt-size made %d requests to the model server", n)
	}
	var size struct {
		System []struct {
			Name  string `json:"name"`
			Bytes int    `json:"bytes"`
		} `json:"system"`
		SystemBytes int `json:"system_bytes"`
		Tools       []struct {
			Name    string `json:"name"`
			Toolset string `json:"toolset"`
			Bytes   int    `json:"bytes"`
		} `json:"tools"`
		ToolBytes  int `json:"tool_bytes"`
		TotalBytes int `json:"total_bytes"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &size); err != nil {
		t.Fatalf("%v\n%s", err, r.stdout)
	}
	var parts []string
	for _, p := range size.System {
		parts = append(parts, p.Name)
	}
	if !slices.Contains(parts, "identity") || !slices.Contains(parts, "platform hint") {
		t.Fatalf("system prompt parts %v", parts)
	}

	text := hermes(t, home, work, append([]string{"prompt-size"}, endpoint...)...)
	if text.code != 0 || !strings.Contains(text.stdout, "identity") || !strings.Contains(text.stdout, "terminal") ||
		!strings.Contains(text.stdout, "total "+strconv.Itoa(size.TotalBytes)+" bytes") {
		t.Fatalf("exit %d stdout %s stderr %s", text.code, text.stdout, text.stderr)
	}

	srv.Enqueue(llmtest.Reply{Text: "ok"})
	if r := hermes(t, home, work, append([]string{"-z", "hi"}, endpoint...)...); r.code != 0 {
		t.Fatalf("exit %d stderr %s", r.code, r.stderr)
	}
	req := srv.Requests()[0]
	var body struct {
		Tools []json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(req.Body, &body); err != nil {
		t.Fatal(err)
	}
	sent := map[string]int{}
	for i, raw := range body.Tools {
		sent[req.Tools()[i].Name] = len(raw)
	}
	if len(size.Tools) != len(sent) {
		t.Fatalf("prompt-size counts %d tools, the request sent %d", len(size.Tools), len(sent))
	}
	for _, ts := range size.Tools {
		if sent[ts.Name] != ts.Bytes || ts.Toolset == "" {
			t.Errorf("%s: prompt-size says %d bytes (toolset %q), the request sent %d", ts.Name, ts.Bytes, ts.Toolset, sent[ts.Name])
		}
	}
	if sys := req.System(); len(sys) != size.SystemBytes {
		t.Errorf("prompt-size says the system prompt is %d bytes, the request sent %d", size.SystemBytes, len(sys))
	}
}

// With no provider configured, prompt-size still answers: nothing is
// called, so a placeholder endpoint stands in.
func TestPromptSizeWorksWithNoProviderConfigured(t *testing.T) {
	home := t.TempDir()
	r := hermes(t, home, home, "prompt-size")
	if r.code != 0 || !strings.Contains(r.stdout, "tools") || !strings.Contains(r.stdout, "memory") {
		t.Fatalf("exit %d stdout %s stderr %s", r.code, r.stdout, r.stderr)
	}
}
