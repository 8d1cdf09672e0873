package session

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
)

// Responses and named conversations point into sessions: they are read
// back, deleted on their own, and go with their session.
func TestAPIResponsesAndConversationsFollowTheirSession(t *testing.T) {
	st, err := Open(filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	s, err := st.CreateSession(ctx, Session{Source: "api_server"})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.PutResponse(ctx, StoredResponse{ID: "resp_1", SessionID: s.ID, MessageCount: 2, Body: []byte(`{"id":"resp_1"}`)}); err != nil {
		t.Fatal(err)
	}
	if err := st.PutResponse(ctx, StoredResponse{ID: "resp_2", SessionID: s.ID, MessageCount: 4, Body: []byte(`{"id":"resp_2"}`)}); err != nil {
		t.Fatal(err)
	}
	r, err := st.Response(ctx, "resp_1")
	if err != nil || r.SessionID != s.ID || r.MessageCount != 2 || string(r.Body) != `{"id":"resp_1"}` || r.CreatedAt.IsZero() {
		t.Fatalf("response %+v err %v", r, err)
	}
	if err := st.DeleteResponse(ctx, "resp_1"); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Response(ctx, "resp_1"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("deleted response: err = %v", err)
	}
	if err := st.DeleteResponse(ctx, "resp_1"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("deleting twice: err = %v", err)
	}
	if _, err := st.Conversation(ctx, "chat"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown conversation: err = %v", err)
	}
	child, _ := st.CreateSession(ctx, Session{Source: "api_server", ParentID: s.ID})
	for _, id := range []string{s.ID, child.ID} {
		if err := st.SetConversation(ctx, "chat", id); err != nil {
			t.Fatal(err)
		}
	}
	if id, err := st.Conversation(ctx, "chat"); err != nil || id != child.ID {
		t.Fatalf("conversation = %q, %v; want %s", id, err, child.ID)
	}
	if err := st.Delete(ctx, s.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Response(ctx, "resp_2"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("response of a deleted session: err = %v", err)
	}
}
