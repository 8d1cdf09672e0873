package sessionsearch

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/session"
	"github.com/hermes-go/hermes/tool"
)

func newStore(t *testing.T) *session.Store {
	t.Helper()
	s, err := session.Open(filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func create(t *testing.T, s *session.Store, in session.Session, msgs ...llm.Message) string {
	t.Helper()
	x, err := s.CreateSession(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range msgs {
		if err := s.AppendMessage(context.Background(), x.ID, m); err != nil {
			t.Fatal(err)
		}
	}
	return x.ID
}

func call(t *testing.T, tl tool.Tool, current, args string) (map[string]any, tool.Result) {
	t.Helper()
	res, err := tl.Run(context.Background(), tool.Call{ID: "c", Name: "session_search", Args: json.RawMessage(args), SessionID: current})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	var out map[string]any
	if err := json.Unmarshal([]byte(res.Content), &out); err != nil {
		t.Fatalf("result %q: %v", res.Content, err)
	}
	return out, res
}

func TestDiscoveryGroupsBySessionRanksAndExcludesTheCurrentConversation(t *testing.T) {
	s := newStore(t)
	best := create(t, s, session.Session{Title: "Nginx outage", Model: "gpt-5"},
		llm.User("nginx returned 502 after the nginx reload"),
		llm.Assistant("the nginx upstream was down"),
		llm.User("thanks"))
	weaker := create(t, s, session.Session{Source: "api"},
		llm.User("a long conversation about gardening and cooking and, briefly, nginx configuration among many other topics"))
	current := create(t, s, session.Session{}, llm.User("why does nginx fail again?"))
	child := create(t, s, session.Session{ParentID: current}, llm.User("nginx nginx nginx"))
	_ = child

	out, res := call(t, New(s, nil), child, `{"query":"nginx"}`)
	if res.IsError || out["success"] != true {
		t.Fatalf("%s", res.Content)
	}
	results := out["results"].([]any)
	if len(results) != 2 || out["count"] != 2.0 {
		t.Fatalf("want 2 sessions (current lineage excluded), got %s", res.Content)
	}
	first := results[0].(map[string]any)
	if first["session_id"] != best || first["title"] != "Nginx outage" || first["model"] != "gpt-5" || first["messages"] != 3.0 {
		t.Fatalf("best session first: %v", first)
	}
	matches := first["matches"].([]any)
	if len(matches) != 2 || !strings.Contains(matches[0].(map[string]any)["snippet"].(string), ">>>nginx<<<") {
		t.Fatalf("matches %v", matches)
	}
	if results[1].(map[string]any)["session_id"] != weaker {
		t.Fatalf("second %v", results[1])
	}

	out, _ = call(t, New(s, nil), child, `{"query":"nginx","limit":1}`)
	if len(out["results"].([]any)) != 1 {
		t.Fatal("limit not applied")
	}
	out, _ = call(t, New(s, nil), child, `{"query":"nginx","role_filter":"assistant"}`)
	if r := out["results"].([]any); len(r) != 1 || len(r[0].(map[string]any)["matches"].([]any)) != 1 {
		t.Fatalf("role filter: %v", out)
	}
	out, res = call(t, New(s, nil), child, `{"query":"kubernetes"}`)
	if res.IsError || out["count"] != 0.0 {
		t.Fatalf("no match: %s", res.Content)
	}
}

func TestReadShowsTheStartAndEndOfASession(t *testing.T) {
	s := newStore(t)
	var msgs []llm.Message
	for i := range 40 {
		msgs = append(msgs, llm.User(fmt.Sprintf("message %d %s", i+1, strings.Repeat("x", 600))))
	}
	msgs = append(msgs, llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "1", Name: "terminal", Arguments: "{}"}}})
	id := create(t, s, session.Session{Title: "Long"}, msgs...)
	out, res := call(t, New(s, nil), "", fmt.Sprintf(`{"session_id":%q}`, id))
	if res.IsError {
		t.Fatal(res.Content)
	}
	lines := out["messages"].([]any)
	if len(lines) != 30 || out["omitted_messages"] != 11.0 || out["title"] != "Long" {
		t.Fatalf("%d lines, omitted %v", len(lines), out["omitted_messages"])
	}
	first := lines[0].(map[string]any)
	if first["seq"] != 1.0 || !strings.HasPrefix(first["content"].(string), "message 1 ") || len([]rune(first["content"].(string))) != 501 {
		t.Fatalf("first line %v", first)
	}
	last := lines[29].(map[string]any)
	if last["seq"] != 41.0 || last["tool_calls"].([]any)[0] != "terminal" {
		t.Fatalf("last line %v", last)
	}
	out, res = call(t, New(s, nil), "", `{"session_id":"nope"}`)
	if !res.IsError || out["success"] != false || !strings.Contains(out["error"].(string), "nope") {
		t.Fatalf("unknown session: %s", res.Content)
	}
}

func TestBrowseListsRecentSessionsButNotTheCurrentOne(t *testing.T) {
	s := newStore(t)
	a := create(t, s, session.Session{Title: "A"}, llm.User("first a"))
	create(t, s, session.Session{Source: "subagent"}, llm.User("sub"))
	cur := create(t, s, session.Session{}, llm.User("now"))
	out, res := call(t, New(s, nil), cur, `{}`)
	if res.IsError {
		t.Fatal(res.Content)
	}
	list := out["sessions"].([]any)
	if len(list) != 1 || list[0].(map[string]any)["session_id"] != a || list[0].(map[string]any)["preview"] != "first a" {
		t.Fatalf("%s", res.Content)
	}
}

func TestFailuresAreResults(t *testing.T) {
	out, res := call(t, New(nil, nil), "", `{"query":"x"}`)
	if !res.IsError || out["success"] != false {
		t.Fatalf("nil store: %s", res.Content)
	}
	s := newStore(t)
	out, res = call(t, New(s, nil), "", `{"query":"*** ()"}`)
	if !res.IsError || !strings.Contains(out["error"].(string), "no words") {
		t.Fatalf("empty query: %s", res.Content)
	}
	spec := New(s, nil).Spec()
	if spec.Name != "session_search" || spec.Class != tool.Parallel {
		t.Fatalf("%+v", spec)
	}
}

// On a first run there is nothing to search: the tool is offered once the
// store holds a session other than the current one, and never without a
// store.
func TestOfferedOnlyWhenAnotherSessionIsStored(t *testing.T) {
	if err := New(nil, nil).Spec().Check(); err == nil {
		t.Fatal("offered without a store")
	}
	s := newStore(t)
	current := ""
	tl := New(s, func() string { return current })
	if err := tl.Spec().Check(); err == nil {
		t.Fatal("offered over an empty store")
	}
	current = create(t, s, session.Session{}, llm.User("first run"))
	if err := tl.Spec().Check(); err == nil {
		t.Fatal("offered when the only stored session is the current one")
	}
	create(t, s, session.Session{}, llm.User("another run"))
	if err := tl.Spec().Check(); err != nil {
		t.Fatalf("not offered with another session stored: %v", err)
	}
}
