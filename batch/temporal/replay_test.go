package temporal

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/app"
	"github.com/hermes-go/hermes/batch"
	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/sandbox"
	"github.com/hermes-go/hermes/tool"
)

func TestMain(m *testing.M) {
	sandbox.MaybeRunHelper()
	os.Exit(m.Run())
}

// replayRuntime is a prompt's conversation whose model is never called:
// the replay answers from the journal.
func replayRuntime(t *testing.T, maxTurns int) (*app.Conversation, Setup) {
	t.Helper()
	cfg := config.Default()
	cfg.Home = t.TempDir()
	cfg.Provider, cfg.BaseURL, cfg.APIKey, cfg.Model.Name = "custom", "http://127.0.0.1:9/v1", "k", "m"
	cfg.Agent.MaxTurns = maxTurns
	pool, err := batch.NewRuntime(context.Background(), cfg, app.Options{Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pool.Close() })
	rt, err := batch.OpenPrompt(context.Background(), pool, app.ConversationOptions{}, []string{"terminal", "file"}, t.TempDir(), false)
	if err != nil {
		t.Fatal(err)
	}
	sys, err := rt.SystemPrompt(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	s := Setup{SystemPrompt: sys}
	for _, sp := range rt.ToolSpecs() {
		d := tool.Def(sp)
		s.Tools = append(s.Tools, ToolSpec{Name: d.Name, Description: d.Description, Parameters: d.Parameters, Toolset: sp.Toolset})
	}
	return rt, s
}

func task() Task {
	return Task{Task: batch.Task{RunName: "r", Prompt: batch.Prompt{Index: 3, Text: "list the files"}}}
}

func callReply(id, cmd string) *llm.Response {
	return &llm.Response{FinishReason: llm.FinishToolCalls, Message: llm.Message{Role: llm.RoleAssistant,
		ToolCalls: []llm.ToolCall{{ID: id, Name: "terminal", Arguments: `{"command":"` + cmd + `"}`}}}}
}

// The replayed loop asks for one effect at a time and, given every
// result, ends its turn as a run would.
func TestReplayStepsThroughTheTurn(t *testing.T) {
	rt, setup := replayRuntime(t, 0)
	ctx := context.Background()
	j := Journal{Tools: map[string]ToolResult{}}

	s, err := plan(ctx, rt, task(), setup, j)
	if err != nil || s.Model == nil {
		t.Fatalf("first step %+v, %v; want a model call", s, err)
	}
	if m := s.Model.Messages; len(m) != 2 || m[0].Role != llm.RoleSystem || m[0].Content != setup.SystemPrompt || m[1].Content != "list the files" || len(s.Model.Tools) == 0 {
		t.Fatalf("first request %+v", s.Model)
	}
	j.Models = append(j.Models, ModelRecord{s.Fingerprint, ModelResult{Response: callReply("c1", "ls")}})

	s, err = plan(ctx, rt, task(), setup, j)
	if err != nil || s.Tool == nil || s.Tool.Key != "1/c1" || s.Tool.Call.Name != "terminal" || !strings.Contains(string(s.Tool.Call.Args), "ls") || s.Tool.Call.TaskID != "task_3" {
		t.Fatalf("second step %+v, %v; want the terminal call", s, err)
	}
	j.Tools[s.Tool.Key] = ToolResult{Content: "a.txt\nb.txt", Status: tool.StatusOK}

	s, err = plan(ctx, rt, task(), setup, j)
	if err != nil || s.Model == nil || s.Model.Messages[len(s.Model.Messages)-1].Content != "a.txt\nb.txt" {
		t.Fatalf("third step %+v, %v; want a model call with the result", s, err)
	}
	j.Models = append(j.Models, ModelRecord{s.Fingerprint, ModelResult{Response: &llm.Response{FinishReason: llm.FinishStop,
		Message: llm.Message{Role: llm.RoleAssistant, Content: "Two files.", Reasoning: "counted"}}}})

	s, err = plan(ctx, rt, task(), setup, j)
	if err != nil || s.Done == nil {
		t.Fatalf("last step %+v, %v; want the end", s, err)
	}
	out := s.Done
	if !out.Completed || out.APICalls != 2 || out.ExitReason != "text_response" || len(out.Messages) != 4 || out.Messages[3].Content != "Two files." || len(out.Tools) == 0 {
		t.Fatalf("outcome %+v", out)
	}
	if isErr, ok := out.ToolErrors["c1"]; !ok || isErr {
		t.Errorf("tool errors %v", out.ToolErrors)
	}

	// A journal recorded for another conversation is not replayed.
	j.Models[1].Fingerprint = "other"
	if _, err := plan(ctx, rt, task(), setup, j); !errors.As(err, new(errDiverged)) {
		t.Errorf("diverged journal: %v", err)
	}
}

// The loop's own rules run in the replay: at the end of the iteration
// budget it asks for a summary, without tools, and the prompt is partial.
func TestReplayKeepsTheIterationBudget(t *testing.T) {
	rt, setup := replayRuntime(t, 1)
	ctx := context.Background()
	j := Journal{Tools: map[string]ToolResult{}}
	s, _ := plan(ctx, rt, task(), setup, j)
	j.Models = append(j.Models, ModelRecord{s.Fingerprint, ModelResult{Response: callReply("c1", "ls")}})
	s, _ = plan(ctx, rt, task(), setup, j)
	j.Tools[s.Tool.Key] = ToolResult{Content: "a.txt"}
	s, err := plan(ctx, rt, task(), setup, j)
	if err != nil || s.Model == nil || len(s.Model.Tools) != 0 {
		t.Fatalf("step after the budget: %+v, %v; want a summary call without tools", s, err)
	}
	j.Models = append(j.Models, ModelRecord{s.Fingerprint, ModelResult{Response: &llm.Response{FinishReason: llm.FinishStop, Message: llm.Message{Content: "Found a.txt."}}}})
	s, err = plan(ctx, rt, task(), setup, j)
	if err != nil || s.Done == nil || !s.Done.Partial || s.Done.ExitReason != "max_iterations" {
		t.Fatalf("end: %+v, %v", s, err)
	}
	// A provider error recorded for a call is the loop's to handle.
	j = Journal{Tools: map[string]ToolResult{}}
	s, _ = plan(ctx, rt, task(), setup, j)
	j.Models = append(j.Models, ModelRecord{s.Fingerprint, ModelResult{Error: &llm.ProviderError{Kind: llm.ErrAuth, StatusCode: 401, Message: "bad key"}}})
	s, err = plan(ctx, rt, task(), setup, j)
	if err != nil || s.Done == nil || !s.Done.Failed || s.Done.ExitReason != "provider_error" || !strings.Contains(s.Done.Error, "bad key") {
		t.Fatalf("provider error: %+v, %v", s.Done, err)
	}
}
