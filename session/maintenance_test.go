package session

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/hermes-go/hermes/llm"
)

func TestForkCopiesTheConversationIntoAChild(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	src := mustCreate(t, s, Session{Model: "m", Provider: "p", Cwd: "/work", Title: "Original", SystemPrompt: "sys"})
	s.SetTodo(ctx, src.ID, json.RawMessage(`{"todos":[],"revision":2}`))
	mustAppend(t, s, src.ID, llm.User("one"), llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "1", Name: "t", Arguments: "{}"}}}, llm.ToolResult("1", "t", "ok"))

	fork, err := s.Fork(ctx, src.ID, "Branch")
	if err != nil {
		t.Fatal(err)
	}
	if fork.ParentID != src.ID || fork.Title != "Branch" || fork.Model != "m" || fork.Cwd != "/work" ||
		fork.SystemPrompt != "sys" || fork.MessageCount != 3 || fork.ID == src.ID {
		t.Fatalf("fork %+v", fork)
	}
	if todo, _ := s.Todo(ctx, fork.ID); string(todo) != `{"todos":[],"revision":2}` {
		t.Fatalf("todo %s", todo)
	}
	a, _ := s.Messages(ctx, src.ID)
	b, _ := s.Messages(ctx, fork.ID)
	ab, _ := json.Marshal(a)
	bb, _ := json.Marshal(b)
	if string(ab) != string(bb) {
		t.Fatalf("messages differ:\n%s\n%s", ab, bb)
	}
	mustAppend(t, s, fork.ID, llm.User("only in the fork"))
	if a, _ := s.Messages(ctx, src.ID); len(a) != 3 {
		t.Fatal("appending to the fork changed the original")
	}
	if _, err := s.Fork(ctx, src.ID, "Original"); !errors.Is(err, ErrTitleTaken) {
		t.Fatalf("fork with a taken title: %v", err)
	}
	if _, err := s.Fork(ctx, "missing", ""); !errors.Is(err, ErrNotFound) {
		t.Fatalf("fork of unknown: %v", err)
	}
}

func TestLatestIsPerWorkspaceAndSkipsSubagentsAndTools(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	a := mustCreate(t, s, Session{Cwd: "/a"})
	b := mustCreate(t, s, Session{Cwd: "/b"})
	mustCreate(t, s, Session{Cwd: "/a", Source: "subagent"})
	mustCreate(t, s, Session{Cwd: "/a", Source: "tool"})
	if got, err := s.Latest(ctx, "/a"); err != nil || got.ID != a.ID {
		t.Fatalf("Latest(/a) = %s, %v", got.ID, err)
	}
	if got, err := s.Latest(ctx, ""); err != nil || got.ID != b.ID {
		t.Fatalf("Latest() = %s, %v", got.ID, err)
	}
	if _, err := s.Latest(ctx, "/c"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Latest(/c): %v", err)
	}
}

func TestStatsAndOptimize(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	a := mustCreate(t, s, Session{Source: "cli"})
	b := mustCreate(t, s, Session{Source: "api"})
	mustAppend(t, s, a.ID, llm.User("x"), llm.User("y"))
	mustAppend(t, s, b.ID, llm.User("pelican"))
	s.EndSession(ctx, b.ID, "done")
	st, err := s.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Sessions != 2 || st.Open != 1 || st.Messages != 3 || st.BySource["cli"] != 1 || st.BySource["api"] != 1 || st.FileBytes == 0 {
		t.Fatalf("%+v", st)
	}
	if err := s.Optimize(ctx); err != nil {
		t.Fatal(err)
	}
	if res, err := s.Search(ctx, "pelican", SearchOptions{}); err != nil || len(res) != 1 {
		t.Fatalf("search after optimize: %v, %v", res, err)
	}
}

func TestEnsureCreatesOnceAndThenReturnsTheStoredSession(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	first, err := s.Ensure(ctx, Session{ID: "20261130_000000_aaaaaa", Model: "m1", SystemPrompt: "p"})
	if err != nil || first.Model != "m1" {
		t.Fatalf("%+v %v", first, err)
	}
	again, err := s.Ensure(ctx, Session{ID: "20261130_000000_aaaaaa", Model: "m2"})
	if err != nil || again.Model != "m1" || again.SystemPrompt != "p" {
		t.Fatalf("second Ensure changed or lost the session: %+v %v", again, err)
	}
	if x, err := s.Ensure(ctx, Session{}); err != nil || x.ID == "" {
		t.Fatalf("Ensure without id: %+v %v", x, err)
	}
}
