package session

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/hermes-go/hermes/llm"
)

// A message stored with the writes pending before it records the
// session, its system prompt and its usage in the same transaction; a
// failed one stores none of them.
func TestAppendMessageWithStoresAllOrNothing(t *testing.T) {
	st, err := Open(filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	meta := llm.SessionMeta{ID: "20261201_120000_abcdef", Source: "api_server", Model: "m", Provider: "p", Cwd: "/work"}
	err = st.AppendMessageWith(ctx, meta.ID, llm.User("hello"), llm.PendingWrites{
		Session: &meta, SystemPrompt: "You are Hermes.", Usage: llm.Usage{InputTokens: 10, OutputTokens: 2}, APICalls: 1})
	if err != nil {
		t.Fatal(err)
	}
	got, err := st.Get(ctx, meta.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Source != "api_server" || got.Model != "m" || got.Cwd != "/work" || got.MessageCount != 1 ||
		got.APICalls != 1 || got.Usage.InputTokens != 10 || got.Usage.OutputTokens != 2 {
		t.Fatalf("stored session %+v", got)
	}
	if got.SystemPrompt != "You are Hermes." {
		t.Fatalf("system prompt %q", got.SystemPrompt)
	}

	// The session exists now: recording it again changes nothing, and the
	// usage adds up.
	err = st.AppendMessageWith(ctx, meta.ID, llm.Assistant("hi"), llm.PendingWrites{Session: &meta, Usage: llm.Usage{InputTokens: 5}, APICalls: 2})
	if err != nil {
		t.Fatal(err)
	}
	got, _ = st.Get(ctx, meta.ID)
	if got.MessageCount != 2 || got.APICalls != 3 || got.Usage.InputTokens != 15 || got.StartedAt.IsZero() {
		t.Fatalf("after the second message: %+v", got)
	}

	// A child whose parent does not exist fails whole: no session, no
	// message, no usage.
	orphan := llm.SessionMeta{ID: "20261201_120001_fedcba", Source: "subagent", ParentID: "no-such-parent"}
	err = st.AppendMessageWith(ctx, orphan.ID, llm.User("lost"), llm.PendingWrites{Session: &orphan, SystemPrompt: "p", APICalls: 1})
	if err == nil {
		t.Fatal("a child of a missing parent was stored")
	}
	if _, gerr := st.Get(ctx, orphan.ID); !errors.Is(gerr, ErrNotFound) {
		t.Fatalf("the failed write left a session: %v", gerr)
	}
	// Nothing pending: a plain append.
	if err := st.AppendMessageWith(ctx, meta.ID, llm.User("again"), llm.PendingWrites{}); err != nil {
		t.Fatal(err)
	}
	if msgs, _ := st.Messages(ctx, meta.ID); len(msgs) != 3 {
		t.Fatalf("%d messages", len(msgs))
	}
}
