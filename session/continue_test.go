package session

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/hermes-go/hermes/llm"
)

func TestContinueSessionStoresTheChildAndEndsTheParent(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	parent := mustCreate(t, s, Session{ID: "parent", Source: "cli", Cwd: "/src"})
	mustAppend(t, s, parent.ID, llm.User("first question"), llm.Assistant("first answer"), llm.User("second question"))
	summary := llm.Assistant("[summary of earlier turns]")
	child := llm.SessionMeta{ID: "child", Source: "cli", Model: "m", Provider: "custom", Cwd: "/src"}
	if err := s.ContinueSession(ctx, parent.ID, "compression", child, []llm.Message{llm.User("first question"), summary}); err != nil {
		t.Fatal(err)
	}
	got, err := s.Get(ctx, "child")
	if err != nil || got.ParentID != "parent" || got.Model != "m" || got.Provider != "custom" || got.Cwd != "/src" || got.MessageCount != 2 || !got.EndedAt.IsZero() {
		t.Fatalf("child %+v, %v", got, err)
	}
	msgs, err := s.Messages(ctx, "child")
	if err != nil || len(msgs) != 2 || msgs[1].Content != summary.Content {
		t.Fatalf("child messages %+v, %v", msgs, err)
	}
	p, err := s.Get(ctx, "parent")
	if err != nil || p.EndReason != "compression" || p.EndedAt.IsZero() || p.MessageCount != 3 {
		t.Fatalf("parent %+v, %v", p, err)
	}
	if latest, err := s.Resolve(ctx, "latest"); err != nil || latest.ID != "child" {
		t.Fatalf("latest = %s, %v", latest.ID, err)
	}
}

// A continuation that fails at any step stores nothing: no child row, no
// child messages, and the parent open with its messages, still the one
// "latest" resumes.
func TestContinueSessionThatFailsLeavesNothing(t *testing.T) {
	msgs := []llm.Message{llm.User("first question"), llm.Assistant("[summary]"), llm.User("next")}
	for _, tc := range []struct {
		name   string
		setup  func(t *testing.T, s *Store)
		parent string
		msgs   []llm.Message
		want   error
	}{
		{name: "a message is refused by the database", parent: "parent", msgs: msgs,
			setup: func(t *testing.T, s *Store) {
				// The third insert fails, after the child row and two messages.
				if _, err := s.w.Exec(`CREATE TRIGGER refuse_next BEFORE INSERT ON messages
					WHEN NEW.content = 'next' AND NEW.session_id = 'child'
					BEGIN SELECT RAISE(ABORT, 'disk said no'); END`); err != nil {
					t.Fatal(err)
				}
			}},
		{name: "a message cannot be encoded", parent: "parent",
			msgs: []llm.Message{msgs[0], msgs[1], {Role: llm.RoleAssistant, Content: "x", ReasoningDetails: []json.RawMessage{json.RawMessage(`{`)}}}},
		{name: "the child id is taken", parent: "parent", msgs: msgs, want: ErrExists,
			setup: func(t *testing.T, s *Store) { mustCreate(t, s, Session{ID: "child", Source: "subagent"}) }},
		{name: "the parent does not exist", parent: "missing", msgs: msgs, want: ErrNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := openTest(t)
			ctx := context.Background()
			mustCreate(t, s, Session{ID: "parent", Source: "cli"})
			mustAppend(t, s, "parent", llm.User("first question"), llm.Assistant("first answer"))
			if tc.setup != nil {
				tc.setup(t, s)
			}
			before, err := s.List(ctx, ListOptions{Limit: -1})
			if err != nil {
				t.Fatal(err)
			}
			err = s.ContinueSession(ctx, tc.parent, "compression", llm.SessionMeta{ID: "child", Source: "cli"}, tc.msgs)
			if err == nil || (tc.want != nil && !errors.Is(err, tc.want)) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			after, err := s.List(ctx, ListOptions{Limit: -1})
			if err != nil {
				t.Fatal(err)
			}
			if len(after) != len(before) {
				t.Fatalf("%d sessions after the failure, %d before", len(after), len(before))
			}
			for i := range after {
				if after[i].ID != before[i].ID || after[i].MessageCount != before[i].MessageCount || !after[i].EndedAt.Equal(before[i].EndedAt) || after[i].Children != before[i].Children {
					t.Fatalf("session changed by the failure:\nbefore %+v\nafter  %+v", before[i], after[i])
				}
			}
			var stray int
			if err := s.r.QueryRow(`SELECT count(*) FROM messages WHERE session_id = 'child'`).Scan(&stray); err != nil || stray != 0 {
				t.Fatalf("%d messages stored for the child, %v", stray, err)
			}
			if p, err := s.Get(ctx, "parent"); err != nil || !p.EndedAt.IsZero() || p.MessageCount != 2 {
				t.Fatalf("parent %+v, %v", p, err)
			}
			if latest, err := s.Resolve(ctx, "latest"); err != nil || latest.ID != "parent" {
				t.Fatalf("latest = %s, %v", latest.ID, err)
			}
		})
	}
}
