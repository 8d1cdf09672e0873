package apiserver_test

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/gateway/apiserver"
	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
)

func chatBody(stream bool, msgs ...string) map[string]any {
	var list []any
	for i, m := range msgs {
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		list = append(list, map[string]any{"role": role, "content": m})
	}
	return map[string]any{"model": "anything", "messages": list, "stream": stream}
}

// A chat completion runs the whole loop, tools included, and its
// conversation is a stored session the next request can continue.
func TestAChatCompletionRunsToolsAndIsAStoredSession(t *testing.T) {
	f := newFixture(t, apiserver.Options{})
	os.WriteFile(filepath.Join(f.workdir, "notes.txt"), []byte("the answer is 42"), 0o644)
	f.llm.Enqueue(
		llmtest.Reply{ToolCalls: []llm.ToolCall{{ID: "call_1", Name: "read_file", Arguments: `{"path":"notes.txt"}`}}},
		llmtest.Reply{Text: "The notes say 42."},
		llmtest.Reply{Text: "You asked about the notes."},
	)
	resp, body := f.do(t, http.MethodPost, "/v1/chat/completions", map[string]any{
		"model": "gpt-4o",
		"messages": []any{
			map[string]any{"role": "system", "content": "Answer in one sentence."},
			map[string]any{"role": "user", "content": "hello"},
			map[string]any{"role": "assistant", "content": "hi there"},
			map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": "what do my notes say?"}}},
		},
	})
	if resp.StatusCode != 200 {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	var out struct {
		Object  string `json:"object"`
		Model   string `json:"model"`
		Choices []struct {
			Message      struct{ Role, Content string }
			FinishReason string `json:"finish_reason"`
		}
		Usage struct {
			PromptTokens int `json:"prompt_tokens"`
			TotalTokens  int `json:"total_tokens"`
		}
	}
	json.Unmarshal(body, &out)
	if out.Object != "chat.completion" || out.Model != "hermes-agent" || len(out.Choices) != 1 || out.Choices[0].Message.Content != "The notes say 42." ||
		out.Choices[0].FinishReason != "stop" || out.Usage.PromptTokens == 0 || out.Usage.TotalTokens == 0 {
		t.Fatalf("completion %s", body)
	}
	reqs := f.llm.Requests()
	if got := reqs[1].LastToolResult(); !strings.Contains(got, "the answer is 42") {
		t.Fatalf("the tool result the model read: %q", got)
	}
	if sys := reqs[0].System(); !strings.Contains(sys, "Answer in one sentence.") {
		t.Fatalf("the client's system message is not layered on the prompt:\n%s", sys)
	}
	id := resp.Header.Get("X-Hermes-Session-Id")
	s, err := f.rt.Store().Get(context.Background(), id)
	if err != nil || s.Source != "api_server" || s.MessageCount != 6 {
		t.Fatalf("stored session %+v err %v", s, err)
	}

	// The next request names the session: its history comes from the
	// store, whatever the client resends.
	resp, body = f.do(t, http.MethodPost, "/v1/chat/completions", chatBody(false, "what did I ask?"), "X-Hermes-Session-Id", id)
	if resp.StatusCode != 200 || !strings.Contains(string(body), "You asked about the notes.") || resp.Header.Get("X-Hermes-Session-Id") != id {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	sent := f.llm.Requests()[2].Messages()
	if len(sent) != 8 || sent[1].Content != "hello" || sent[3].Content != "what do my notes say?" || sent[7].Content != "what did I ask?" {
		t.Fatalf("the continued turn sent %d messages: %+v", len(sent), sent)
	}

	resp, body = f.do(t, http.MethodPost, "/v1/chat/completions", chatBody(false, "hi"), "X-Hermes-Session-Id", "20260101_000000_nope")
	if _, code, _ := errorOf(t, body); resp.StatusCode != 404 || code != "session_not_found" {
		t.Fatalf("unknown session: %d %s", resp.StatusCode, body)
	}
}

// Streamed, the answer arrives as chunks and each tool call as
// hermes.tool.progress events, then the finish and [DONE].
func TestAStreamedChatCompletionForwardsTextAndToolProgress(t *testing.T) {
	f := newFixture(t, apiserver.Options{})
	os.WriteFile(filepath.Join(f.workdir, "a.txt"), []byte("alpha"), 0o644)
	f.llm.Enqueue(
		llmtest.Reply{ToolCalls: []llm.ToolCall{{ID: "call_1", Name: "read_file", Arguments: `{"path":"a.txt"}`}}},
		llmtest.Reply{Text: "The file holds alpha, as read."},
	)
	body := chatBody(true, "read a.txt")
	body["stream_options"] = map[string]any{"include_usage": true}
	resp, raw := f.do(t, http.MethodPost, "/v1/chat/completions", body)
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("%d %s", resp.StatusCode, raw)
	}
	events := readSSE(t, raw)
	var text strings.Builder
	var progress []map[string]any
	var finish string
	var usage bool
	for _, e := range events[:len(events)-1] {
		m := decodeJSON(t, []byte(e.data))
		if e.name == "hermes.tool.progress" {
			if choices, ok := m["choices"].([]any); !ok || len(choices) != 0 {
				t.Fatalf("a progress event without empty choices: %s", e.data)
			}
			progress = append(progress, m["tool"].(map[string]any))
			continue
		}
		if m["object"] != "chat.completion.chunk" {
			t.Fatalf("chunk %s", e.data)
		}
		choices := m["choices"].([]any)
		if len(choices) == 0 {
			usage = m["usage"] != nil
			continue
		}
		c := choices[0].(map[string]any)
		if d, ok := c["delta"].(map[string]any)["content"].(string); ok {
			text.WriteString(d)
		}
		if fr, ok := c["finish_reason"].(string); ok {
			finish = fr
		}
	}
	if last := events[len(events)-1]; last.data != "[DONE]" {
		t.Fatalf("the stream ends with %q", last.data)
	}
	if text.String() != "The file holds alpha, as read." || finish != "stop" || !usage {
		t.Fatalf("text %q finish %q usage %v", text.String(), finish, usage)
	}
	if len(progress) != 2 || progress[0]["status"] != "started" || progress[0]["name"] != "read_file" || progress[1]["status"] != "completed" ||
		!strings.Contains(progress[1]["result_preview"].(string), "alpha") {
		t.Fatalf("progress %v", progress)
	}
}

// Nobody attends the server: a dangerous command is denied and the
// model reads that approvals.unattended_mode is why.
func TestDangerousCommandsAreDeniedAndTheModelToldWhy(t *testing.T) {
	f := newFixture(t, apiserver.Options{})
	victim := filepath.Join(f.workdir, "build")
	os.Mkdir(victim, 0o755)
	f.llm.Enqueue(
		llmtest.Reply{ToolCalls: []llm.ToolCall{{ID: "call_1", Name: "terminal", Arguments: `{"command":"rm -rf build"}`}}},
		llmtest.Reply{Text: "I could not delete it."},
	)
	resp, body := f.do(t, http.MethodPost, "/v1/chat/completions", chatBody(false, "delete build"))
	if resp.StatusCode != 200 {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	if got := f.llm.Requests()[1].LastToolResult(); !strings.Contains(got, "DENIED") || !strings.Contains(got, "approvals.unattended_mode") {
		t.Fatalf("the model read %q", got)
	}
	if _, err := os.Stat(victim); err != nil {
		t.Fatalf("the directory is gone: %v", err)
	}
}

// Between turns, a conversation over 85% of the context window is
// compressed before the next turn runs, into a child session.
func TestALongConversationIsCompressedBeforeTheTurn(t *testing.T) {
	f := newFixture(t, apiserver.Options{}, func(c *config.Config) {
		c.Model.ContextLength = 20_000
		c.Compression.Threshold = 0.95 // the loop's own preflight stays out of it
		c.Compression.ProtectFirstN, c.Compression.ProtectLastN = 1, 1
	})
	f.llm.Enqueue(llmtest.Reply{Text: "## Summary\nThe user asked for filler text."}, llmtest.Reply{Text: "short answer"})
	long := strings.Repeat("lorem ipsum ", 6000) // ~18,000 tokens
	resp, body := f.do(t, http.MethodPost, "/v1/chat/completions", chatBody(false, "write a lot", long, "thanks", "you are welcome", "now be brief"))
	if resp.StatusCode != 200 || !strings.Contains(string(body), "short answer") {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	reqs := f.llm.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model calls, want the summary and the turn", len(reqs))
	}
	sent := reqs[1].Messages()
	for _, m := range sent {
		if strings.Contains(m.Content, long) {
			t.Fatal("the turn still sent the long message")
		}
	}
	if !strings.Contains(sent[len(sent)-2].Content+sent[1].Content+sent[2].Content, "filler text") {
		t.Fatalf("the turn did not send the summary: %+v", sent)
	}
	child, err := f.rt.Store().Get(context.Background(), resp.Header.Get("X-Hermes-Session-Id"))
	if err != nil || child.ParentID == "" {
		t.Fatalf("the conversation did not move to a child session: %+v %v", child, err)
	}
	// Compressed before the turn, not by the loop during it: the parent
	// never got the new user message.
	parent, _ := f.rt.Store().Messages(context.Background(), child.ParentID)
	for _, m := range parent {
		if m.Content == "now be brief" {
			t.Fatal("the parent session holds the new message: the turn ran before the compression")
		}
	}
}
