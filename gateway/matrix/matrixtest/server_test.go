package matrixtest

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

// call makes one request of the bot's and decodes the answer.
func call(t *testing.T, ctx context.Context, s *Server, method, path string, body any) (int, map[string]any, error) {
	t.Helper()
	raw, _ := json.Marshal(body)
	req, _ := http.NewRequestWithContext(ctx, method, s.URL()+path, bytes.NewReader(raw))
	req.Header.Set("Authorization", "Bearer "+s.Token())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	var out map[string]any
	json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out, nil
}

// A repeated transaction id is answered with the event it first made,
// and posts nothing.
func TestTransactionsPostOnce(t *testing.T) {
	s := NewServer(t)
	room := s.AddRoom()
	path := "/_matrix/client/v3/rooms/" + room + "/send/m.room.message/"
	msg := map[string]any{"msgtype": "m.text", "body": "hi"}
	_, a, _ := call(t, context.Background(), s, http.MethodPut, path+"t1", msg)
	_, b, _ := call(t, context.Background(), s, http.MethodPut, path+"t1", msg)
	_, c, _ := call(t, context.Background(), s, http.MethodPut, path+"t2", msg)
	if a["event_id"] != b["event_id"] || a["event_id"] == c["event_id"] || len(s.Messages(room)) != 2 {
		t.Fatalf("answers %v %v %v, %d messages", a, b, c, len(s.Messages(room)))
	}
}

// A held send whose client hangs up is never posted.
func TestAHeldSendDiesWithItsClient(t *testing.T) {
	s := NewServer(t)
	room := s.AddRoom()
	s.Hold()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, _, err := call(t, ctx, s, http.MethodPut, "/_matrix/client/v3/rooms/"+room+"/send/m.room.message/t1",
			map[string]any{"msgtype": "m.text", "body": "lost"})
		done <- err
	}()
	if !s.WaitFor(5*time.Second, func() bool { return s.Held() == 1 }) {
		t.Fatal("the send was not held")
	}
	cancel()
	<-done
	if !s.WaitFor(5*time.Second, func() bool { return s.Held() == 0 }) {
		t.Fatal("the send is still held")
	}
	s.Release()
	if ms := s.Messages(room); len(ms) != 0 {
		t.Fatalf("the dead send was posted: %+v", ms)
	}
}

// /sync serves what came after its since token, and a redelivered event
// again.
func TestSyncServesAfterSince(t *testing.T) {
	s := NewServer(t)
	u := User{ID: "@alice:test", Name: "Alice"}
	room := s.DM(u)
	_, first, _ := call(t, context.Background(), s, http.MethodGet, "/_matrix/client/v3/sync?timeout=0", nil)
	since := first["next_batch"].(string)
	e := s.Say(u, room, "hello")
	_, next, _ := call(t, context.Background(), s, http.MethodGet, "/_matrix/client/v3/sync?timeout=1000&since="+since, nil)
	raw, _ := json.Marshal(next)
	if !strings.Contains(string(raw), `"hello"`) || next["next_batch"] == since {
		t.Fatalf("the sync after %s: %s", since, raw)
	}
	s.Redeliver(e)
	_, again, _ := call(t, context.Background(), s, http.MethodGet, "/_matrix/client/v3/sync?timeout=1000&since="+next["next_batch"].(string), nil)
	if raw, _ := json.Marshal(again); !strings.Contains(string(raw), e.ID) {
		t.Fatalf("the redelivered event is not served: %s", raw)
	}
}
