package serve_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
	"github.com/hermes-go/hermes/mcp/serve"
	"github.com/hermes-go/hermes/session"
)

type bearer struct{ key string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.key)
	return http.DefaultTransport.RoundTrip(r)
}

// Streamable HTTP answers 401 to a request without the key or with
// another, and serves run_task to a client that sends it. No key, no
// handler.
func TestHTTPNeedsTheBearerKey(t *testing.T) {
	f := newFixture(t)
	if _, err := f.srv.Handler(""); !errors.Is(err, serve.ErrNoKey) {
		t.Fatalf("a handler without a key: %v", err)
	}
	h, err := f.srv.Handler("sekret")
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(h)
	defer hs.Close()
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	for _, auth := range []string{"", "Bearer wrong", "sekret"} {
		req, _ := http.NewRequest("POST", hs.URL, strings.NewReader(init))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("Authorization %q: status %d, want 401", auth, resp.StatusCode)
		}
	}

	f.llm.Enqueue(llmtest.Reply{Text: "Over HTTP."})
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "http-client", Version: "1"}, nil).Connect(context.Background(),
		&sdk.StreamableClientTransport{Endpoint: hs.URL, HTTPClient: &http.Client{Transport: bearer{"sekret"}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res := call(t, cs, "run_task", map[string]any{"prompt": "hello"})
	if res.IsError || text(res) != "Over HTTP." {
		t.Fatalf("run_task over HTTP: %s", text(res))
	}
	sessionID(t, res)
}

// Cancelling the run_task request interrupts the run: the model call is
// abandoned and the session is released, so it can be continued.
func TestCancellingRunTaskInterruptsTheRun(t *testing.T) {
	f := newFixture(t)
	f.llm.Enqueue(llmtest.Reply{Hang: true}, llmtest.Reply{Text: "Continued."})
	cs := f.connect(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "run_task", Arguments: map[string]any{"prompt": "think forever"}})
		errc <- err
	}()
	select {
	case <-f.llm.Hanging():
	case <-time.After(bound):
		t.Fatal("the model was never called")
	}
	cancel()
	select {
	case err := <-errc:
		if err == nil {
			t.Fatal("a cancelled call answered")
		}
	case <-time.After(bound):
		t.Fatal("the cancelled call never returned")
	}
	list, err := f.rt.Store().List(context.Background(), session.ListOptions{Source: serve.Source})
	if err != nil || len(list) != 1 {
		t.Fatalf("sessions %+v, %v", list, err)
	}
	// The session is free once the interrupted turn has ended.
	deadline := time.Now().Add(bound)
	for {
		res := call(t, cs, "messages_send", map[string]any{"session_id": list[0].ID, "message": "go on"})
		if !res.IsError {
			if text(res) != "Continued." {
				t.Fatalf("messages_send: %s", text(res))
			}
			break
		}
		if !strings.Contains(text(res), "busy") && !strings.Contains(text(res), "held") && !strings.Contains(text(res), "in use") ||
			time.Now().After(deadline) {
			t.Fatalf("messages_send after the cancel: %s", text(res))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// events_wait times out when nothing happens, and returns a message
// another writer stored as soon as it is read.
func TestEventsWaitSeesAnotherWritersMessage(t *testing.T) {
	f := newFixture(t)
	cs := f.connect(t, nil)
	var got struct {
		Event *struct {
			Type      string
			SessionID string `json:"session_id"`
			Role      string
			Content   string
			Cursor    int64
		}
		Reason string
	}
	structured(t, call(t, cs, "events_wait", map[string]any{"timeout_ms": 20}), &got)
	if got.Event != nil || got.Reason != "timeout" {
		t.Fatalf("events_wait with nothing stored: %+v", got)
	}

	waited := make(chan *sdk.CallToolResult, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "events_wait", Arguments: map[string]any{"timeout_ms": 30000}})
		if err != nil {
			t.Error(err)
		}
		waited <- res
	}()
	store := f.rt.Store()
	s, err := store.CreateSession(context.Background(), session.Session{Source: "telegram"})
	if err != nil {
		t.Fatal(err)
	}
	if err := store.AppendMessage(context.Background(), s.ID, llm.Message{Role: llm.RoleUser, Content: "hello from the chat"}); err != nil {
		t.Fatal(err)
	}
	var res *sdk.CallToolResult
	select {
	case res = <-waited:
	case <-time.After(bound):
		t.Fatal("events_wait never returned")
	}
	structured(t, res, &got)
	if got.Event == nil || got.Event.Type != "message" || got.Event.SessionID != s.ID || got.Event.Role != "user" || got.Event.Content != "hello from the chat" {
		t.Fatalf("events_wait: %+v", got.Event)
	}
	var polled struct {
		Events     []struct{ Cursor int64 }
		NextCursor int64 `json:"next_cursor"`
	}
	structured(t, call(t, cs, "events_poll", map[string]any{"after_cursor": got.Event.Cursor}), &polled)
	if len(polled.Events) != 0 || polled.NextCursor != got.Event.Cursor {
		t.Fatalf("events after the one read: %+v", polled)
	}
}
