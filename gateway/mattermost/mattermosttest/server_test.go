package mattermosttest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/hermes-go/hermes/gateway/mattermost/mattermosttest"
)

func newServer(t *testing.T) *mattermosttest.Server {
	srv := mattermosttest.NewServer(t)
	srv.AddUser("alice", "alice")
	srv.AddChannel("dm", "D")
	return srv
}

func call(t *testing.T, srv *mattermosttest.Server, method, path, token string, body any) (*http.Response, map[string]any) {
	t.Helper()
	var rd *bytes.Reader
	b, _ := json.Marshal(body)
	rd = bytes.NewReader(b)
	req, _ := http.NewRequest(method, srv.URL()+path, rd)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&out)
	return resp, out
}

// Requests without the token are refused 401, as the server does.
func TestTheTokenIsChecked(t *testing.T) {
	srv := newServer(t)
	if resp, _ := call(t, srv, "GET", "/api/v4/users/me", "wrong", nil); resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("a wrong token: %d", resp.StatusCode)
	}
	if resp, me := call(t, srv, "GET", "/api/v4/users/me", mattermosttest.Token, nil); resp.StatusCode != 200 || me["id"] != mattermosttest.BotID {
		t.Fatalf("the token: %d %v", resp.StatusCode, me)
	}
}

// A patch's props replace the post's: without attachments the buttons
// are gone; History keeps every version.
func TestAPatchReplacesProps(t *testing.T) {
	srv := newServer(t)
	_, p := call(t, srv, "POST", "/api/v4/posts", mattermosttest.Token, map[string]any{"channel_id": "dm", "message": "a",
		"props": map[string]any{"attachments": []any{map[string]any{"actions": []any{map[string]any{"id": "x", "name": "Go", "type": "button"}}}}}})
	id := p["id"].(string)
	if got, _ := srv.Post(id); len(got.Buttons) != 1 {
		t.Fatalf("the post %+v", got)
	}
	call(t, srv, "PUT", "/api/v4/posts/"+id+"/patch", mattermosttest.Token, map[string]any{"message": "b", "props": map[string]any{}})
	got, _ := srv.Post(id)
	if len(got.Buttons) != 0 || strings.Join(got.History, ",") != "a,b" {
		t.Fatalf("after the patch %+v", got)
	}
}

// An enforced rate limit answers every write to the channel 429 until it
// passes, and counts them.
func TestAnEnforcedRateLimit(t *testing.T) {
	srv := newServer(t)
	srv.Fail("posts.create", mattermosttest.Failure{RetryAfter: time.Hour, Enforce: true})
	for range 2 {
		resp, _ := call(t, srv, "POST", "/api/v4/posts", mattermosttest.Token, map[string]any{"channel_id": "dm", "message": "a"})
		if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" {
			t.Fatalf("answered %d", resp.StatusCode)
		}
	}
	if srv.EarlyRetries() != 1 || len(srv.BotPosts("dm")) != 0 {
		t.Fatalf("early %d, posts %d", srv.EarlyRetries(), len(srv.BotPosts("dm")))
	}
}

// The websocket answers the challenge, says hello and carries posted
// events; a post while it is held away is only in the channel, which the
// REST API lists since a time.
func TestTheWebsocket(t *testing.T) {
	srv := newServer(t)
	conn, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(srv.URL(), "http")+"/api/v4/websocket", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.WriteJSON(map[string]any{"seq": 1, "action": "authentication_challenge", "data": map[string]string{"token": mattermosttest.Token}})
	read := func() map[string]any {
		t.Helper()
		_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
		var m map[string]any
		if err := conn.ReadJSON(&m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	if m := read(); m["status"] != "OK" || m["seq_reply"] != float64(1) {
		t.Fatalf("the challenge's reply %v", m)
	}
	if m := read(); m["event"] != "hello" {
		t.Fatalf("then %v", m)
	}
	first := srv.Say("dm", "alice", "", "hi")
	m := read()
	data := m["data"].(map[string]any)
	var p map[string]any
	_ = json.Unmarshal([]byte(data["post"].(string)), &p)
	if m["event"] != "posted" || data["channel_type"] != "D" || p["id"] != first.ID || p["message"] != "hi" {
		t.Fatalf("the posted event %v", m)
	}

	srv.Disconnect()
	later := srv.Say("dm", "alice", "", "while away")
	_, list := call(t, srv, "GET", "/api/v4/channels/dm/posts?since="+jsonNumber(later.CreateAt), mattermosttest.Token, nil)
	if order := list["order"].([]any); len(order) != 1 || order[0] != later.ID {
		t.Fatalf("since the later post: %v", list)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	go func() {
		_, _, _ = websocket.DefaultDialer.DialContext(ctx, "ws"+strings.TrimPrefix(srv.URL(), "http")+"/api/v4/websocket", nil)
	}()
	if err := srv.Wait(ctx, func() bool { return srv.Held("websocket") == 1 }); err != nil {
		t.Fatal("a new websocket was not held while disconnected")
	}
}

func jsonNumber(n int64) string { b, _ := json.Marshal(n); return string(b) }
