package telegramtest_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/gateway/telegram/telegramtest"
)

// A held call waits unanswered until Release; one whose client gives up
// changes nothing.
func TestHeldCallsWaitForReleaseAndAbandonedOnesChangeNothing(t *testing.T) {
	srv := telegramtest.NewServer(t, telegramtest.Options{})
	dm := srv.DM(alice)
	srv.Hold("sendMessage")

	ctx, cancel := context.WithCancel(context.Background())
	abandoned := make(chan error, 1)
	go func() {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL()+"/bot"+srv.Token()+"/sendMessage",
			strings.NewReader(`{"chat_id":1001,"text":"lost"}`))
		req.Header.Set("Content-Type", "application/json")
		_, err := http.DefaultClient.Do(req)
		abandoned <- err
	}()
	if !srv.WaitFor(5*time.Second, func() bool { return srv.Held("sendMessage") == 1 }) {
		t.Fatal("the call was not held")
	}
	cancel()
	<-abandoned
	if !srv.WaitFor(5*time.Second, func() bool { return srv.Held("sendMessage") == 0 }) {
		t.Fatal("the abandoned call is still held")
	}

	kept := make(chan answer, 1)
	go func() { kept <- call(t, srv, "sendMessage", map[string]any{"chat_id": dm.ID, "text": "kept"}) }()
	if !srv.WaitFor(5*time.Second, func() bool { return srv.Held("sendMessage") == 1 }) {
		t.Fatal("the second call was not held")
	}
	if n := len(srv.BotMessages(dm)); n != 0 {
		t.Fatalf("%d messages before the release", n)
	}
	srv.Release("sendMessage")
	if a := <-kept; !a.OK {
		t.Fatalf("after the release: %+v", a)
	}
	if msgs := srv.BotMessages(dm); len(msgs) != 1 || msgs[0].Text != "kept" {
		t.Fatalf("messages %+v, want only the released one", msgs)
	}
	if a := call(t, srv, "sendMessage", map[string]any{"chat_id": dm.ID, "text": "later"}); !a.OK {
		t.Fatalf("a call after the release: %+v", a)
	}
}

// A message's History is what readers saw after the send and each edit.
func TestHistoryKeepsEveryVersionReadersSaw(t *testing.T) {
	srv := telegramtest.NewServer(t, telegramtest.Options{})
	dm := srv.DM(alice)
	a := call(t, srv, "sendMessage", map[string]any{"chat_id": dm.ID, "text": "<b>one</b>", "parse_mode": "HTML"})
	var sent struct {
		MessageID int `json:"message_id"`
	}
	json.Unmarshal(a.Result, &sent)
	call(t, srv, "editMessageText", map[string]any{"chat_id": dm.ID, "message_id": sent.MessageID, "text": "one two"})
	call(t, srv, "editMessageText", map[string]any{"chat_id": dm.ID, "message_id": sent.MessageID, "text": "one two"}) // not modified
	if h := srv.BotMessages(dm)[0].History; len(h) != 2 || h[0] != "one" || h[1] != "one two" {
		t.Fatalf("history %q", h)
	}
}
