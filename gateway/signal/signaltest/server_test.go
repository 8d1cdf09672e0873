package signaltest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

// readEvents opens the event stream with lastID and reads n events' data.
func readEvents(t *testing.T, s *Server, lastID string, n int) (ids, data []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.URL()+"/api/v1/events", nil)
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for len(data) < n && sc.Scan() {
		line := sc.Text()
		if v, ok := strings.CutPrefix(line, "id:"); ok {
			ids = append(ids, v)
		}
		if v, ok := strings.CutPrefix(line, "data:"); ok {
			data = append(data, v)
		}
	}
	return ids, data
}

// The daemon keeps its events: a stream opened with Last-Event-ID gets
// the ones after it, with an unknown id all of them.
func TestEventsAreKeptForLastEventID(t *testing.T) {
	s := NewServer(t, Options{})
	a := Person{Number: "+15550000001", Name: "A"}
	s.Say(a, DM(a), "one")
	s.Say(a, DM(a), "two")
	s.Say(a, DM(a), "three")
	ids, data := readEvents(t, s, "123-0", 3)
	if len(data) != 3 || !strings.Contains(data[0], `"one"`) || !strings.Contains(data[2], `"three"`) {
		t.Fatalf("with an unknown id: %v", data)
	}
	_, data = readEvents(t, s, ids[0], 2)
	if len(data) != 2 || !strings.Contains(data[0], `"two"`) {
		t.Fatalf("after the first: %v", data)
	}
}

// A held send whose client goes away is dropped: no message, nothing
// held; a released one is sent.
func TestHeldSends(t *testing.T) {
	s := NewServer(t, Options{})
	s.HoldSends()
	body := `{"jsonrpc":"2.0","id":"1","method":"send","params":{"recipient":["+15550000001"],"message":"hi"}}`
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.URL()+"/api/v1/rpc", strings.NewReader(body))
	errc := make(chan error, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		errc <- err
	}()
	if !s.WaitFor(5*time.Second, func() bool { return s.HeldSends() == 1 }) {
		t.Fatal("the send was not held")
	}
	cancel()
	<-errc
	if !s.WaitFor(5*time.Second, func() bool { return s.HeldSends() == 0 }) {
		t.Fatal("the abandoned send is still held")
	}
	s.ReleaseSends()
	if ms := s.BotMessages("+15550000001"); len(ms) != 0 {
		t.Fatalf("the abandoned send was delivered: %+v", ms)
	}
	resp, err := http.Post(s.URL()+"/api/v1/rpc", "application/json", bytes.NewReader([]byte(body)))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var ans struct {
		Result struct{ Timestamp int64 } `json:"result"`
	}
	json.NewDecoder(resp.Body).Decode(&ans)
	if ms := s.BotMessages("+15550000001"); len(ms) != 1 || ms[0].Timestamp != ans.Result.Timestamp {
		t.Fatalf("the send after the release: %+v, answered %d", ms, ans.Result.Timestamp)
	}
}
