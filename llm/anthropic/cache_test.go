package anthropic

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/hermes-go/hermes/llm"
)

// longHistory is a conversation of n rounds of user, assistant tool call
// and tool result.
func longHistory(n int) []llm.Message {
	msgs := []llm.Message{llm.System("You are terse.")}
	for i := range n {
		id := fmt.Sprintf("c%d", i)
		msgs = append(msgs,
			llm.User(fmt.Sprintf("question %d", i)),
			llm.Message{Role: llm.RoleAssistant, Content: "checking", ToolCalls: []llm.ToolCall{call(id, "look", `{"n":1}`)}},
			llm.ToolResult(id, "look", fmt.Sprintf("result %d", i)),
		)
	}
	return msgs
}

// markerPaths lists where a request body carries cache_control.
func markerPaths(body map[string]any) []string {
	var out []string
	if sys, ok := body["system"].([]any); ok {
		for j, b := range sys {
			if _, ok := b.(map[string]any)["cache_control"]; ok {
				out = append(out, fmt.Sprintf("system.%d", j))
			}
		}
	}
	for i, m := range body["messages"].([]any) {
		for j, b := range m.(map[string]any)["content"].([]any) {
			if _, ok := b.(map[string]any)["cache_control"]; ok {
				out = append(out, fmt.Sprintf("messages.%d.%d", i, j))
			}
		}
	}
	return out
}

func TestCacheMarkersOnSystemAndLastThreeMessages(t *testing.T) {
	c := New(llm.Options{})
	msgs := longHistory(5)
	body := wire(t, c, &llm.Request{Model: "m", Messages: msgs, Cache: &llm.CacheOptions{TTL: "5m"}})
	n := len(body["messages"].([]any))
	got := markerPaths(body)
	// The last three messages: user (tool result + next question), assistant
	// (text + tool_use), user (tool result); each marked on its last block.
	want := []string{"system.0", fmt.Sprintf("messages.%d.1", n-3), fmt.Sprintf("messages.%d.1", n-2), fmt.Sprintf("messages.%d.0", n-1)}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("markers at %v, want %v", got, want)
	}
	sys := body["system"].([]any)[0].(map[string]any)
	assertJSON(t, "system block", sys, map[string]any{"type": "text", "text": "You are terse.", "cache_control": map[string]any{"type": "ephemeral"}})
}

func TestCacheMarkerTTL(t *testing.T) {
	for _, tt := range []struct {
		ttl  string
		want map[string]any
	}{
		{"5m", map[string]any{"type": "ephemeral"}},
		{"", map[string]any{"type": "ephemeral"}},
		{"1h", map[string]any{"type": "ephemeral", "ttl": "1h"}},
	} {
		body := wire(t, New(llm.Options{}), &llm.Request{Model: "m", Messages: []llm.Message{llm.System("s"), llm.User("hi")}, Cache: &llm.CacheOptions{TTL: tt.ttl}})
		sys := body["system"].([]any)[0].(map[string]any)
		assertJSON(t, "ttl "+tt.ttl, sys["cache_control"], tt.want)
	}
}

func TestNoCacheMarkersUnlessAsked(t *testing.T) {
	body := wire(t, New(llm.Options{}), &llm.Request{Model: "m", Messages: longHistory(3)})
	if got := markerPaths(body); len(got) != 0 {
		t.Fatalf("markers %v without Request.Cache", got)
	}
	if body["system"] != "You are terse." {
		t.Fatalf("system = %#v, want the plain string", body["system"])
	}
}

func TestApplyCacheMarkersIsIdempotentAndPure(t *testing.T) {
	system, msgs := convertMessages(longHistory(4), true)
	sys := []anthropic.TextBlockParam{{Text: system}}
	inSys, inMsgs := mustJSON(t, sys), mustJSON(t, msgs)

	s1, m1 := ApplyCacheMarkers(sys, msgs, "1h")
	s2, m2 := ApplyCacheMarkers(s1, m1, "1h")
	if !bytes.Equal(mustJSON(t, s1), mustJSON(t, s2)) || !bytes.Equal(mustJSON(t, m1), mustJSON(t, m2)) {
		t.Fatal("applying the markers twice changed the result")
	}
	if !bytes.Equal(mustJSON(t, sys), inSys) || !bytes.Equal(mustJSON(t, msgs), inMsgs) {
		t.Fatal("ApplyCacheMarkers modified its arguments")
	}
	if n := bytes.Count(mustJSON(t, m2), []byte(`"cache_control"`)) + bytes.Count(mustJSON(t, s2), []byte(`"cache_control"`)); n != MaxCacheMarkers {
		t.Fatalf("%d markers, want %d", n, MaxCacheMarkers)
	}

	// Markers already placed elsewhere (an older layout) are moved, not added to.
	s3, m3 := ApplyCacheMarkers(sys, m1[:len(m1)-2], "1h")
	body := map[string]any{}
	_ = json.Unmarshal(mustJSON(t, map[string]any{"system": s3, "messages": m3}), &body)
	if got := markerPaths(body); len(got) > MaxCacheMarkers {
		t.Fatalf("%d markers after re-applying on a shorter history: %v", len(got), got)
	}
}

func TestMessageThatCannotCarryAMarkerIsSkipped(t *testing.T) {
	msgs := []anthropic.MessageParam{
		anthropic.NewUserMessage(anthropic.NewTextBlock("first")),
		anthropic.NewUserMessage(anthropic.NewTextBlock("second")),
		anthropic.NewAssistantMessage(anthropic.NewRedactedThinkingBlock("opaque")),
		anthropic.NewUserMessage(anthropic.NewTextBlock("third")),
	}
	_, out := ApplyCacheMarkers(nil, msgs, "5m")
	body := map[string]any{}
	_ = json.Unmarshal(mustJSON(t, map[string]any{"messages": out}), &body)
	want := []string{"messages.0.0", "messages.1.0", "messages.3.0"}
	if got := markerPaths(body); !reflect.DeepEqual(got, want) {
		t.Fatalf("markers at %v, want %v", got, want)
	}
}

func TestCachedRequestsLeaveHistoryAndSystemBytesStable(t *testing.T) {
	srv := newFakeServer(t, reply{body: textStream("one")}, reply{body: textStream("two")})
	c := New(llm.Options{BaseURL: srv.URL, HTTPClient: srv.Client()})
	history := longHistory(3)
	history[2].ReasoningDetails = []json.RawMessage{detail(`{"type":"thinking","thinking":"t","signature":"s"}`)}
	stored := llm.CloneMessages(history)
	req := &llm.Request{Model: "m", Messages: history, Tools: []llm.ToolDef{
		{Name: "look", Description: "d", Parameters: []byte(`{"type":"object","properties":{"n":{"type":"integer"}},"additionalProperties":false,"$defs":{},"description":"x"}`)},
	}, Cache: &llm.CacheOptions{TTL: "1h"}}
	for range 2 {
		if _, err := c.Complete(t.Context(), req, nil); err != nil {
			t.Fatal(err)
		}
	}
	if !reflect.DeepEqual(history, stored) {
		t.Fatal("the stored history was modified by a cached call")
	}
	if !bytes.Equal(srv.bodies[0], srv.bodies[1]) {
		t.Fatalf("the same request was sent as different bytes:\n%s\n%s", srv.bodies[0], srv.bodies[1])
	}
	var b0 struct{ System json.RawMessage }
	_ = json.Unmarshal(srv.bodies[0], &b0)
	if len(b0.System) == 0 {
		t.Fatal("no system prompt sent")
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
