package llmtest_test

import (
	"bufio"
	"encoding/json"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
)

// keyPaths lists the field paths of a JSON value ("choices[].delta.content").
func keyPaths(v any, prefix string, out map[string]bool) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			p := k
			if prefix != "" {
				p = prefix + "." + k
			}
			out[p] = true
			keyPaths(e, p, out)
		}
	case []any:
		for _, e := range x {
			keyPaths(e, prefix+"[]", out)
		}
	}
}

// shapes returns the field paths of a response body per event kind; a
// non-streamed JSON body is one kind, "body".
func shapes(t *testing.T, body string) map[string]map[string]bool {
	t.Helper()
	body = strings.TrimSpace(body)
	if !strings.HasPrefix(body, "{") {
		return sseEvents(t, body)
	}
	var v any
	if err := json.Unmarshal([]byte(body), &v); err != nil {
		t.Fatalf("body is not JSON: %v", err)
	}
	paths := map[string]bool{}
	keyPaths(v, "", paths)
	return map[string]map[string]bool{"body": paths}
}

// sseEvents splits an SSE body into (event kind, decoded data) pairs. The
// kind is the "type" field, or for Chat Completions chunks a name for
// what the chunk carries.
func sseEvents(t *testing.T, body string) map[string]map[string]bool {
	t.Helper()
	kinds := map[string]map[string]bool{}
	sc := bufio.NewScanner(strings.NewReader(body))
	sc.Buffer(make([]byte, 1<<20), 1<<22)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok || data == "[DONE]" {
			continue
		}
		var v map[string]any
		if err := json.Unmarshal([]byte(data), &v); err != nil {
			t.Fatalf("event data is not JSON: %v: %s", err, data)
		}
		kind, _ := v["type"].(string)
		if kind == "" {
			kind = chunkKind(v)
		}
		if kinds[kind] == nil {
			kinds[kind] = map[string]bool{}
		}
		keyPaths(v, "", kinds[kind])
	}
	return kinds
}

func chunkKind(v map[string]any) string {
	choices, _ := v["choices"].([]any)
	if len(choices) == 0 {
		return "usage chunk"
	}
	c := choices[0].(map[string]any)
	d, _ := c["delta"].(map[string]any)
	switch {
	case c["finish_reason"] != nil:
		return "finish chunk"
	case d["tool_calls"] != nil:
		calls := d["tool_calls"].([]any)
		if calls[0].(map[string]any)["id"] != nil {
			return "tool call start chunk"
		}
		return "tool call arguments chunk"
	case d["reasoning_content"] != nil || d["reasoning"] != nil || d["reasoning_details"] != nil:
		return "reasoning chunk"
	case d["content"] != nil && d["content"] != "":
		return "content chunk"
	}
	return "role chunk"
}

// Fields real providers send that carry nothing a client relies on.
var ignoredFields = []string{
	"obfuscation", "caller", "inference_geo", "billing", "prompt_cache_key",
	"prompt_cache_retention", "safety_identifier", "moderation", "max_tool_calls",
	"top_logprobs", "frequency_penalty", "presence_penalty", "reasoning.context",
}

func ignored(p string) bool {
	for _, f := range ignoredFields {
		if p == f || strings.HasSuffix(p, "."+f) || strings.Contains(p, "."+f+".") || strings.HasPrefix(p, f+".") {
			return true
		}
	}
	return false
}

// The replies must carry every field the recorded provider traffic has for
// the same kind of event, so clients written against the real API find
// what they read.
func TestRepliesHaveTheFieldsOfRecordedTraffic(t *testing.T) {
	cases := []struct {
		cassette string
		path     string
		reply    llmtest.Reply
		dialect  llmtest.Dialect
	}{
		{
			"TestOpenAICommon/openai-gpt-4o/multi_tool_streaming.yaml", "/v1/chat/completions",
			llmtest.Reply{Text: "Sum and product.", ToolCalls: []llm.ToolCall{{Name: "add", Arguments: `{"a":2,"b":3}`}, {Name: "multiply", Arguments: `{"a":2,"b":3}`}}},
			"",
		},
		{
			"TestOpenAIResponsesWithSummaryThinking/openai-gpt-5/thinking-streaming.yaml", "/v1/responses",
			llmtest.Reply{Reasoning: "Checking the weather.", Text: "Calling the tool.", ToolCalls: []llm.ToolCall{{Name: "weather", Arguments: `{"location":"Florence"}`}}},
			"",
		},
		{
			"TestAnthropicThinking/claude-sonnet-4/thinking-streaming.yaml", "/v1/messages",
			llmtest.Reply{Reasoning: "Checking the weather.", Text: "Calling the tool.", ToolCalls: []llm.ToolCall{{Name: "weather", Arguments: `{"location":"Florence"}`}}},
			"",
		},
		{
			"TestOpenAICommon/openai-gpt-4o/multi_tool.yaml", "/v1/chat/completions",
			llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "add", Arguments: `{"a":2,"b":3}`}}},
			"",
		},
		{
			"TestOpenAIResponsesWithSummaryThinking/openai-gpt-5/thinking.yaml", "/v1/responses",
			llmtest.Reply{Reasoning: "Checking the weather.", Text: "Calling the tool.", ToolCalls: []llm.ToolCall{{Name: "weather", Arguments: `{"location":"Florence"}`}}},
			"",
		},
		{
			"TestAnthropicThinking/claude-sonnet-4/thinking.yaml", "/v1/messages",
			llmtest.Reply{Reasoning: "Checking the weather.", Text: "Calling the tool.", ToolCalls: []llm.ToolCall{{Name: "weather", Arguments: `{"location":"Florence"}`}}},
			"",
		},
		{
			"TestOpenRouterThinking/anthropic/thinking-streaming.yaml", "/api/v1/chat/completions",
			llmtest.Reply{Reasoning: "Checking the weather.", Text: "Calling the tool.", ToolCalls: []llm.ToolCall{{Name: "weather", Arguments: `{"location":"Florence"}`}}},
			llmtest.DialectOpenRouter,
		},
		{
			"TestOpenRouterThinking/anthropic/thinking.yaml", "/api/v1/chat/completions",
			llmtest.Reply{Reasoning: "Checking the weather.", Text: "Calling the tool.", ToolCalls: []llm.ToolCall{{Name: "weather", Arguments: `{"location":"Florence"}`}}},
			llmtest.DialectOpenRouter,
		},
	}
	for _, c := range cases {
		t.Run(c.cassette, func(t *testing.T) {
			rec, err := llmtest.LoadCassette(filepath.Join(llmtest.CassetteDir(), c.cassette))
			if err != nil {
				t.Fatal(err)
			}
			real := map[string]map[string]bool{}
			for _, in := range rec.Interactions {
				for kind, paths := range shapes(t, in.Response.Body) {
					if real[kind] == nil {
						real[kind] = map[string]bool{}
					}
					for p := range paths {
						real[kind][p] = true
					}
				}
			}

			srv := llmtest.NewServer(t)
			if c.dialect != "" {
				srv.SetDialect(c.dialect)
			}
			srv.Enqueue(c.reply)
			// Send what the recorded client sent.
			resp := post(t, srv.AnthropicURL()+c.path, rec.Interactions[0].Request.Body, "anthropic-version", "2023-06-01")
			ours := shapes(t, readAll(t, resp))

			for kind, paths := range real {
				if ours[kind] == nil {
					t.Errorf("no %q event, which the provider sends", kind)
					continue
				}
				var missing []string
				for p := range paths {
					if !ours[kind][p] && !ignored(p) {
						missing = append(missing, p)
					}
				}
				sort.Strings(missing)
				if len(missing) > 0 {
					t.Errorf("%q lacks fields the provider sends: %s", kind, strings.Join(missing, ", "))
				}
			}
			var extra []string
			for kind := range ours {
				if real[kind] == nil {
					extra = append(extra, kind)
				}
			}
			slices.Sort(extra)
			if len(extra) > 0 {
				t.Logf("event kinds not in this recording: %v", extra)
			}
		})
	}
}

func TestStreamsEndWithTheProvidersTerminator(t *testing.T) {
	cases := []struct {
		path, body, last string
	}{
		{"/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"hi"}],"stream":true}`, "data: [DONE]\n\n"},
		{"/v1/responses", `{"model":"m","input":"hi","stream":true}`, "event: response.completed\ndata: {"},
		{"/v1/messages", `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"hi"}],"stream":true}`, "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"},
	}
	for _, c := range cases {
		t.Run(c.path, func(t *testing.T) {
			srv := llmtest.NewServer(t)
			srv.Enqueue(llmtest.Reply{Text: "hello there"})
			resp := post(t, srv.AnthropicURL()+c.path, c.body, "anthropic-version", "2023-06-01")
			body := readAll(t, resp)
			if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
				t.Errorf("Content-Type = %q", ct)
			}
			frames := strings.Split(strings.TrimSuffix(body, "\n\n"), "\n\n")
			lastFrame := frames[len(frames)-1] + "\n\n"
			if !strings.HasPrefix(lastFrame, c.last) {
				t.Errorf("last frame = %q, want it to start with %q", lastFrame, c.last)
			}
		})
	}
}
