package llmtest_test

import (
	"path"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
)

func TestRequestsRealProvidersRejectGet400(t *testing.T) {
	const anthropicPath = "/v1/messages"
	cases := []struct {
		name    string
		path    string
		body    string
		headers []string
		want    string
	}{
		{
			name: "chat tool result without a call",
			path: "/v1/chat/completions",
			body: `{"model":"m","messages":[{"role":"user","content":"hi"},{"role":"tool","tool_call_id":"call_1","content":"x"}]}`,
			want: "messages with role 'tool' must be a response to a preceeding message with 'tool_calls'",
		},
		{
			name: "chat call without a result",
			path: "/v1/chat/completions",
			body: `{"model":"m","messages":[{"role":"user","content":"hi"},{"role":"assistant","tool_calls":[{"id":"call_1","type":"function","function":{"name":"f","arguments":"{}"}},{"id":"call_2","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"call_1","content":"x"},{"role":"user","content":"next"}]}`,
			want: "The following tool_call_ids did not have response messages: call_2",
		},
		{
			name: "chat result for an unknown id",
			path: "/v1/chat/completions",
			body: `{"model":"m","messages":[{"role":"user","content":"hi"},{"role":"assistant","tool_calls":[{"id":"call_1","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"call_9","content":"x"}]}`,
			want: "'tool_call_id' of 'call_9' not found in 'tool_calls' of previous message",
		},
		{
			name: "chat unknown role",
			path: "/v1/chat/completions",
			body: `{"model":"m","messages":[{"role":"robot","content":"hi"}]}`,
			want: "Invalid value: 'robot'",
		},
		{
			name: "chat without a model",
			path: "/v1/chat/completions",
			body: `{"messages":[{"role":"user","content":"hi"}]}`,
			want: "you must provide a model parameter",
		},
		{
			name: "chat body that is not JSON",
			path: "/v1/chat/completions",
			body: `{"model":`,
			want: "We could not parse the JSON body of your request",
		},
		{
			name: "responses output for an unknown call",
			path: "/v1/responses",
			body: `{"model":"m","input":[{"role":"user","content":"hi"},{"type":"function_call_output","call_id":"call_9","output":"x"}]}`,
			want: "No tool call found for function call output with call_id call_9.",
		},
		{
			name: "responses call without an output",
			path: "/v1/responses",
			body: `{"model":"m","input":[{"role":"user","content":"hi"},{"type":"function_call","call_id":"call_1","name":"f","arguments":"{}"}]}`,
			want: "No tool output found for function call call_1.",
		},
		{
			name: "anthropic without anthropic-version",
			path: anthropicPath,
			body: `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"hi"}]}`,
			want: "anthropic-version: header is required",
		},
		{
			name:    "anthropic without max_tokens",
			path:    anthropicPath,
			headers: []string{"anthropic-version", "2023-06-01"},
			body:    `{"model":"m","messages":[{"role":"user","content":"hi"}]}`,
			want:    "max_tokens: Field required",
		},
		{
			name:    "anthropic tool_use without its result next",
			path:    anthropicPath,
			headers: []string{"anthropic-version", "2023-06-01"},
			body:    `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"f","input":{}}]},{"role":"user","content":"go on"}]}`,
			want:    "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_1",
		},
		{
			name:    "anthropic result for an unknown tool_use",
			path:    anthropicPath,
			headers: []string{"anthropic-version", "2023-06-01"},
			body:    `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_9","content":"x"}]}]}`,
			want:    "unexpected `tool_use_id` found in `tool_result` blocks: toolu_9",
		},
		{
			name:    "anthropic empty message",
			path:    anthropicPath,
			headers: []string{"anthropic-version", "2023-06-01"},
			body:    `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":""}]}`,
			want:    "all messages must have non-empty content except for the optional final assistant message",
		},
		{
			name:    "anthropic empty text block",
			path:    anthropicPath,
			headers: []string{"anthropic-version", "2023-06-01"},
			body:    `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":[{"type":"text","text":""}]}]}`,
			want:    "text content blocks must be non-empty",
		},
		{
			name:    "anthropic thinking without a signature",
			path:    anthropicPath,
			headers: []string{"anthropic-version", "2023-06-01"},
			body:    `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"thinking","thinking":"hmm"},{"type":"text","text":"ok"}]},{"role":"user","content":"again"}]}`,
			want:    "messages.1.content.0.thinking.signature: Field required",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := llmtest.NewServer(t)
			srv.AllowUnexpected()
			srv.Enqueue(llmtest.Reply{Text: "ok"})
			resp := post(t, srv.AnthropicURL()+c.path, c.body, c.headers...)
			body := readAll(t, resp)
			if resp.StatusCode != 400 || !strings.Contains(body, c.want) {
				t.Fatalf("got %d %s, want 400 with %q", resp.StatusCode, body, c.want)
			}
			if wantType := `"invalid_request_error"`; !strings.Contains(body, wantType) {
				t.Errorf("body %s lacks the error type %s", body, wantType)
			}
			if srv.Pending() != 1 {
				t.Error("an invalid request used a scripted reply")
			}
			if un := srv.Unexpected(); len(un) != 1 || !strings.Contains(un[0].Problem, c.want) {
				t.Errorf("Unexpected() = %+v, want the request with its problem", un)
			}

			// SkipValidation lets a parsable request through.
			if strings.Contains(c.name, "not JSON") {
				return
			}
			srv.SkipValidation()
			resp = post(t, srv.AnthropicURL()+c.path, c.body, c.headers...)
			if body := readAll(t, resp); resp.StatusCode != 200 {
				t.Errorf("with SkipValidation: %d %s", resp.StatusCode, body)
			}
		})
	}
}

// Every request recorded from real clients talking to real providers must
// be accepted, and read back with its system prompt and tool results.
func TestRecordedClientRequestsAreAccepted(t *testing.T) {
	files, err := llmtest.CassetteFiles("*/*/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no cassettes: %v", err)
	}
	for _, file := range files {
		c, err := llmtest.LoadCassette(file)
		if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimPrefix(file, llmtest.CassetteDir()+"/")
		t.Run(name, func(t *testing.T) {
			srv := llmtest.NewServer(t)
			for i, in := range c.Interactions {
				srv.Enqueue(llmtest.Reply{Text: "ok"})
				u := in.Request.URL
				p := u[strings.Index(u, "://")+3:]
				p = p[strings.Index(p, "/"):]
				if q := strings.Index(p, "?"); q >= 0 {
					p = p[:q]
				}
				resp := post(t, srv.AnthropicURL()+p, in.Request.Body, "anthropic-version", "2023-06-01")
				if body := readAll(t, resp); resp.StatusCode != 200 {
					t.Fatalf("interaction %d (%s): %d %s", i, path.Base(p), resp.StatusCode, body)
				}
			}
			for i, r := range srv.Requests() {
				msgs := r.Messages()
				if len(msgs) < 2 || msgs[0].Role != llm.RoleSystem || r.System() == "" {
					t.Errorf("request %d: no system prompt in %s", i, dump(msgs))
				}
				if len(r.Tools()) == 0 && !strings.Contains(name, "simple") {
					t.Errorf("request %d: no tools read", i)
				}
				last := msgs[len(msgs)-1]
				if i == 0 {
					if last.Role != llm.RoleUser || last.Content == "" {
						t.Errorf("request %d: last message %s, want the user's question", i, dump([]llm.Message{last}))
					}
					continue
				}
				// Follow-ups end with tool results answering the assistant's calls.
				if last.Role != llm.RoleTool || last.Content == "" || last.Name == "" {
					t.Errorf("request %d: last message %s, want a named tool result", i, dump([]llm.Message{last}))
				}
			}
		})
	}
}
