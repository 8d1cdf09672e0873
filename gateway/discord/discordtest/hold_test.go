package discordtest

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

const wait = 10 * time.Second

// call makes one REST call as the bot and returns the status and the
// decoded body.
func call(t *testing.T, ctx context.Context, srv *Server, method, path string, body any) (int, map[string]any) {
	t.Helper()
	raw, _ := json.Marshal(body)
	req, err := http.NewRequestWithContext(ctx, method, srv.URL()+apiPrefix+path, bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bot "+srv.Token())
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil
	}
	defer resp.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}

func post(t *testing.T, srv *Server, channel, text string) (int, map[string]any) {
	return call(t, context.Background(), srv, http.MethodPost, "/channels/"+channel+"/messages", map[string]any{"content": text})
}

// A held send waits unanswered; when its client goes away it is served
// not at all. Calls the hold does not match pass, and once released
// sends go through.
func TestHoldKeepsSendsInFlight(t *testing.T) {
	srv := NewServer(t)
	ch := srv.DMChannel(User{ID: "2001", Username: "alice"})
	srv.Hold(http.MethodPost, "/channels/*/messages")

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int)
	go func() {
		code, _ := call(t, ctx, srv, http.MethodPost, "/channels/"+ch+"/messages", map[string]any{"content": "held"})
		done <- code
	}()
	if !srv.WaitFor(wait, func() bool { return srv.Held(http.MethodPost, "/channels/*/messages") == 1 }) {
		t.Fatal("the send was not held")
	}
	if code, _ := call(t, context.Background(), srv, http.MethodPost, "/channels/"+ch+"/typing", nil); code != http.StatusNoContent {
		t.Fatalf("typing answered %d while sends were held", code)
	}
	cancel()
	<-done
	if !srv.WaitFor(wait, func() bool { return srv.Held(http.MethodPost, "/channels/*/messages") == 0 }) {
		t.Fatal("the send of a client that went away is still held")
	}
	if ms := srv.Messages(ch); len(ms) != 0 {
		t.Fatalf("a send whose client went away was stored: %+v", ms)
	}
	if rs := srv.RequestsTo(http.MethodPost, "/channels/"+ch+"/messages"); len(rs) != 1 || rs[0].Status != 0 {
		t.Fatalf("the abandoned send is recorded as %+v", rs)
	}

	srv.Release(http.MethodPost, "/channels/*/messages")
	if code, _ := post(t, srv, ch, "after"); code != http.StatusOK {
		t.Fatalf("a send after Release answered %d", code)
	}
	if ms := srv.Messages(ch); len(ms) != 1 || ms[0].Content != "after" {
		t.Fatalf("the channel shows %+v", ms)
	}
}

// An enforced 429 refuses every write to its channel until it passes,
// and counts them; other channels and unenforced 429s hold nothing.
func TestEnforcedRateLimitCountsEarlyWrites(t *testing.T) {
	srv := NewServer(t)
	a := srv.DMChannel(User{ID: "2001", Username: "alice"})
	b := srv.DMChannel(User{ID: "2002", Username: "bob"})
	if code, _ := post(t, srv, a, "first"); code != http.StatusOK {
		t.Fatalf("the first send answered %d", code)
	}
	first := srv.Messages(a)[0].ID

	srv.Fail(http.MethodPost, "/channels/*/messages", RateLimit(time.Hour))
	if code, _ := post(t, srv, a, "limited"); code != http.StatusTooManyRequests {
		t.Fatalf("the scripted 429 answered %d", code)
	}
	if code, _ := post(t, srv, a, "again"); code != http.StatusOK || srv.EarlyRetries() != 0 {
		t.Fatalf("after an unenforced 429 a send answered %d, %d early", code, srv.EarlyRetries())
	}

	limit := RateLimit(time.Hour)
	limit.Enforce = true
	srv.Fail(http.MethodPost, "/channels/*/messages", limit)
	if code, _ := post(t, srv, a, "limited"); code != http.StatusTooManyRequests {
		t.Fatalf("the scripted 429 answered %d", code)
	}
	if code, body := post(t, srv, a, "too soon"); code != http.StatusTooManyRequests || body["retry_after"].(float64) < 3000 {
		t.Fatalf("a send during the limit answered %d %v", code, body)
	}
	edit := map[string]any{"content": "edited too soon"}
	if code, _ := call(t, context.Background(), srv, http.MethodPatch, "/channels/"+a+"/messages/"+first, edit); code != http.StatusTooManyRequests {
		t.Fatalf("an edit during the limit answered %d", code)
	}
	if n := srv.EarlyRetries(); n != 2 {
		t.Fatalf("EarlyRetries is %d, want 2", n)
	}
	if code, _ := post(t, srv, b, "elsewhere"); code != http.StatusOK || srv.EarlyRetries() != 2 {
		t.Fatalf("another channel's send answered %d", code)
	}
}

// History is what members read after the send and after each edit.
func TestHistoryKeepsEveryVersion(t *testing.T) {
	srv := NewServer(t)
	ch := srv.DMChannel(User{ID: "2001", Username: "alice"})
	_, sent := post(t, srv, ch, "one")
	id, _ := sent["id"].(string)
	if code, _ := call(t, context.Background(), srv, http.MethodPatch, "/channels/"+ch+"/messages/"+id, map[string]any{"content": "one two"}); code != http.StatusOK {
		t.Fatalf("the edit answered %d", code)
	}
	m, _ := srv.Message(id)
	if strings.Join(m.History, "|") != "one|one two" || m.Content != "one two" {
		t.Fatalf("the message reads %q with history %q", m.Content, m.History)
	}
}

// gatewayClient identifies on a socket and reads its events.
type gatewayClient struct {
	t  *testing.T
	ws *websocket.Conn
}

func dialGateway(t *testing.T, srv *Server) *gatewayClient {
	t.Helper()
	ws, _, err := websocket.DefaultDialer.Dial(srv.GatewayURL(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	c := &gatewayClient{t: t, ws: ws}
	if op, _, _ := c.read(); op != 10 {
		t.Fatalf("the socket opened with op %d, not HELLO", op)
	}
	identify, _ := json.Marshal(map[string]any{"op": 2, "d": map[string]any{"token": "Bot " + srv.Token(), "intents": 0}})
	if err := ws.WriteMessage(websocket.TextMessage, identify); err != nil {
		t.Fatal(err)
	}
	if _, typ, _ := c.read(); typ != "READY" {
		t.Fatalf("IDENTIFY was answered %s, not READY", typ)
	}
	return c
}

func (c *gatewayClient) read() (int, string, json.RawMessage) {
	c.t.Helper()
	_ = c.ws.SetReadDeadline(time.Now().Add(wait))
	_, data, err := c.ws.ReadMessage()
	if err != nil {
		c.t.Fatal(err)
	}
	var p struct {
		Op int             `json:"op"`
		T  string          `json:"t"`
		D  json.RawMessage `json:"d"`
	}
	if err := json.Unmarshal(data, &p); err != nil {
		c.t.Fatal(err)
	}
	return p.Op, p.T, p.D
}

// nextMessage reads events until a MESSAGE_CREATE and returns its id and
// content.
func (c *gatewayClient) nextMessage() (string, string) {
	c.t.Helper()
	for {
		_, typ, d := c.read()
		if typ != "MESSAGE_CREATE" {
			continue
		}
		var m struct{ ID, Content string }
		_ = json.Unmarshal(d, &m)
		return m.ID, m.Content
	}
}

// Redeliver sends the same MESSAGE_CREATE, with the same id, again.
func TestRedeliverSendsTheSameMessageAgain(t *testing.T) {
	srv := NewServer(t)
	c := dialGateway(t, srv)
	m := srv.PushDM(User{ID: "2001", Username: "alice"}, "hello")
	srv.Redeliver(m)
	for i := 0; i < 2; i++ {
		if id, text := c.nextMessage(); id != m.ID || text != "hello" {
			t.Fatalf("delivery %d was %s %q, want %s \"hello\"", i+1, id, text, m.ID)
		}
	}
}

// While sockets are held a new one waits before its upgrade; released,
// it opens.
func TestHeldSocketsOpenOnRelease(t *testing.T) {
	srv := NewServer(t)
	srv.HoldSockets()
	opened := make(chan error, 1)
	go func() {
		ws, _, err := websocket.DefaultDialer.Dial(srv.GatewayURL(), nil)
		if err == nil {
			ws.Close()
		}
		opened <- err
	}()
	if !srv.WaitFor(wait, func() bool { return srv.HeldSockets() == 1 }) {
		t.Fatal("the socket was not held")
	}
	select {
	case err := <-opened:
		t.Fatalf("a held socket opened: %v", err)
	default:
	}
	srv.ReleaseSockets()
	select {
	case err := <-opened:
		if err != nil {
			t.Fatalf("the released socket did not open: %v", err)
		}
	case <-time.After(wait):
		t.Fatal("the released socket did not open")
	}
	if n := srv.HeldSockets(); n != 0 {
		t.Fatalf("%d sockets still held", n)
	}
}
