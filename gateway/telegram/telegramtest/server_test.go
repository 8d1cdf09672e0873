package telegramtest_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-go/hermes/gateway/telegram/telegramtest"
)

var alice = telegramtest.User{ID: 1001, FirstName: "Alice"}

type answer struct {
	OK          bool            `json:"ok"`
	Result      json.RawMessage `json:"result"`
	ErrorCode   int             `json:"error_code"`
	Description string          `json:"description"`
	Parameters  struct {
		RetryAfter int `json:"retry_after"`
	} `json:"parameters"`
}

// call makes a Bot API request with a JSON body, as any client may.
func call(t *testing.T, srv *telegramtest.Server, method string, params map[string]any) answer {
	t.Helper()
	body, _ := json.Marshal(params)
	resp, err := http.Post(srv.URL()+"/bot"+srv.Token()+"/"+method, "application/json", strings.NewReader(string(body)))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var a answer
	if err := json.NewDecoder(resp.Body).Decode(&a); err != nil {
		t.Fatal(err)
	}
	if !a.OK && a.ErrorCode != resp.StatusCode {
		t.Errorf("error_code %d on HTTP %d", a.ErrorCode, resp.StatusCode)
	}
	return a
}

func updateIDs(t *testing.T, a answer) []int64 {
	t.Helper()
	var ups []struct {
		UpdateID int64 `json:"update_id"`
	}
	if err := json.Unmarshal(a.Result, &ups); err != nil {
		t.Fatalf("getUpdates result %s: %v", a.Result, err)
	}
	var ids []int64
	for _, u := range ups {
		ids = append(ids, u.UpdateID)
	}
	return ids
}

func TestHTMLParseModeIsParsedAsTelegramDoes(t *testing.T) {
	srv := telegramtest.NewServer(t, telegramtest.Options{})
	dm := srv.DM(alice)
	cases := []struct {
		html, text, refusal string
	}{
		{"<b>bold</b> &lt;tag&gt; &amp; a & b", "bold <tag> & a & b", ""},
		{`<a href="https://example.com">link</a> <code>x</code> <pre>y</pre>`, "link x y", ""},
		{"<b>never closed", "", `Can't find end tag corresponding to start tag "b"`},
		{"<b><i>crossed</b></i>", "", `Can't find end tag corresponding to start tag "i"`},
		{"closes nothing</b>", "", "Unexpected end tag"},
		{"<foo>x</foo>", "", `Unsupported start tag "foo"`},
		{"1 < 2", "", "Unclosed start tag"},
		{"1 < 2 > 0", "", `Unsupported start tag ""`},
		{"<b></b>", "", "message text is empty"},
		{strings.Repeat("é", 4097), "", "message is too long"},
	}
	for _, c := range cases {
		a := call(t, srv, "sendMessage", map[string]any{"chat_id": dm.ID, "text": c.html, "parse_mode": "HTML"})
		switch {
		case c.refusal == "" && !a.OK:
			t.Errorf("%q refused: %s", c.html, a.Description)
		case c.refusal != "" && (a.OK || a.ErrorCode != 400 || !strings.Contains(a.Description, c.refusal)):
			t.Errorf("%q answered %v %q, want 400 with %q", c.html, a.OK, a.Description, c.refusal)
		}
		if c.refusal != "" && strings.Contains(c.refusal, "tag") && !strings.HasPrefix(a.Description, "Bad Request: can't parse entities: ") {
			t.Errorf("%q refused with %q, want a can't parse entities refusal", c.html, a.Description)
		}
	}
	msgs := srv.BotMessages(dm)
	if len(msgs) != 2 || msgs[0].Text != cases[0].text || msgs[1].Text != cases[1].text {
		t.Fatalf("chat shows %+v", msgs)
	}
	if e := msgs[1].Entities[0]; e.Type != "text_link" || e.URL != "https://example.com" || e.Length != 4 {
		t.Errorf("link entity %+v", e)
	}
}

func TestGetUpdatesForgetsEverythingBelowTheOffset(t *testing.T) {
	srv := telegramtest.NewServer(t, telegramtest.Options{})
	dm := srv.DM(alice)
	one := srv.SendText(alice, dm, "one")
	two := srv.SendText(alice, dm, "two")
	three := srv.SendText(alice, dm, "three")

	if ids := updateIDs(t, call(t, srv, "getUpdates", nil)); len(ids) != 3 || ids[0] != one.UpdateID {
		t.Fatalf("first getUpdates %v, want all three", ids)
	}
	if ids := updateIDs(t, call(t, srv, "getUpdates", map[string]any{"offset": two.UpdateID})); len(ids) != 2 || ids[0] != two.UpdateID {
		t.Fatalf("getUpdates from two: %v", ids)
	}
	// one is gone for good, even without an offset.
	if ids := updateIDs(t, call(t, srv, "getUpdates", map[string]any{"offset": 0})); len(ids) != 2 || ids[0] != two.UpdateID {
		t.Fatalf("getUpdates after confirming one: %v", ids)
	}
	call(t, srv, "getUpdates", map[string]any{"offset": three.UpdateID + 1})
	if srv.Pending() != 0 || srv.Delivered(one.UpdateID) != 1 || srv.Delivered(two.UpdateID) != 3 {
		t.Errorf("pending %d, one delivered %d, two %d", srv.Pending(), srv.Delivered(one.UpdateID), srv.Delivered(two.UpdateID))
	}
}

func TestGetUpdatesIsHeldUntilAnUpdateAndOnePollerAtATime(t *testing.T) {
	srv := telegramtest.NewServer(t, telegramtest.Options{})
	dm := srv.DM(alice)
	var wg sync.WaitGroup
	var held answer
	wg.Add(1)
	go func() {
		defer wg.Done()
		held = call(t, srv, "getUpdates", map[string]any{"timeout": 30})
	}()
	if !srv.WaitFor(5*time.Second, srv.Polling) {
		t.Fatal("getUpdates not held")
	}
	second := call(t, srv, "getUpdates", map[string]any{"timeout": 0})
	if second.OK || second.ErrorCode != 409 || !strings.Contains(second.Description, "terminated by other getUpdates request") {
		t.Errorf("second poller got %+v, want 409 conflict", second)
	}
	m := srv.SendText(alice, dm, "wakes the poll")
	wg.Wait()
	if ids := updateIDs(t, held); len(ids) != 1 || ids[0] != m.UpdateID {
		t.Errorf("held poll returned %v, want the new update", ids)
	}
}

func TestWebhookBlocksGetUpdates(t *testing.T) {
	srv := telegramtest.NewServer(t, telegramtest.Options{})
	call(t, srv, "setWebhook", map[string]any{"url": "http://127.0.0.1:1/hook", "secret_token": "s3cret"})
	if a := call(t, srv, "getUpdates", nil); a.ErrorCode != 409 || !strings.Contains(a.Description, "webhook is active") {
		t.Errorf("getUpdates with a webhook set: %+v", a)
	}
	call(t, srv, "deleteWebhook", nil)
	if a := call(t, srv, "getUpdates", nil); !a.OK {
		t.Errorf("getUpdates after deleteWebhook: %+v", a)
	}
}

func TestEditThatChangesNothingIsRefused(t *testing.T) {
	srv := telegramtest.NewServer(t, telegramtest.Options{})
	dm := srv.DM(alice)
	call(t, srv, "sendMessage", map[string]any{"chat_id": dm.ID, "text": "<b>draft</b>", "parse_mode": "HTML"})
	id := srv.BotMessages(dm)[0].ID
	same := call(t, srv, "editMessageText", map[string]any{"chat_id": dm.ID, "message_id": id, "text": "<strong>draft</strong>", "parse_mode": "HTML"})
	if same.OK || !strings.HasPrefix(same.Description, "Bad Request: message is not modified") {
		t.Errorf("edit to the same rendering: %+v", same)
	}
	if a := call(t, srv, "editMessageText", map[string]any{"chat_id": dm.ID, "message_id": id, "text": "draft"}); !a.OK {
		t.Errorf("edit dropping the bold: %+v", a)
	}
	if m := srv.BotMessages(dm)[0]; m.Text != "draft" || m.Edits != 1 || len(m.Entities) != 0 {
		t.Errorf("message after edits %+v", m)
	}
}

func TestFloodWaitRefusesEarlyRetries(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	srv := telegramtest.NewServer(t, telegramtest.Options{Now: clock})
	dm := srv.DM(alice)
	srv.Fail("sendMessage", telegramtest.RetryAfter(3))
	send := func() answer { return call(t, srv, "sendMessage", map[string]any{"chat_id": dm.ID, "text": "hi"}) }
	if a := send(); a.ErrorCode != 429 || a.Parameters.RetryAfter != 3 {
		t.Fatalf("scripted 429: %+v", a)
	}
	mu.Lock()
	now = now.Add(2 * time.Second)
	mu.Unlock()
	if a := send(); a.ErrorCode != 429 || a.Parameters.RetryAfter != 1 || srv.EarlyRetries() != 1 {
		t.Errorf("retry 2s into a 3s wait: %+v, early retries %d", a, srv.EarlyRetries())
	}
	mu.Lock()
	now = now.Add(time.Second)
	mu.Unlock()
	if a := send(); !a.OK {
		t.Errorf("retry after the wait: %+v", a)
	}
}

func TestButtonsAndPresses(t *testing.T) {
	srv := telegramtest.NewServer(t, telegramtest.Options{})
	dm := srv.DM(alice)
	long := map[string]any{"inline_keyboard": [][]map[string]string{{{"text": "x", "callback_data": strings.Repeat("d", 65)}}}}
	if a := call(t, srv, "sendMessage", map[string]any{"chat_id": dm.ID, "text": "hi", "reply_markup": long}); a.OK || a.Description != "Bad Request: BUTTON_DATA_INVALID" {
		t.Errorf("65 bytes of callback data: %+v", a)
	}
	ok := map[string]any{"inline_keyboard": [][]map[string]string{{{"text": "Yes", "callback_data": "y"}}}}
	call(t, srv, "sendMessage", map[string]any{"chat_id": dm.ID, "text": "sure?", "reply_markup": ok})
	id := srv.BotMessages(dm)[0].ID
	if _, err := srv.Press(alice, dm, id, "n"); err == nil {
		t.Error("pressed a button the message does not have")
	}
	q, err := srv.Press(alice, dm, id, "y")
	if err != nil {
		t.Fatal(err)
	}
	if a := call(t, srv, "answerCallbackQuery", map[string]any{"callback_query_id": q, "text": "done"}); !a.OK {
		t.Errorf("answer: %+v", a)
	}
	if a := call(t, srv, "answerCallbackQuery", map[string]any{"callback_query_id": q}); a.OK {
		t.Error("a press was answered twice")
	}
	if text, answered := srv.Answer(q); !answered || text != "done" {
		t.Errorf("answer %q %v", text, answered)
	}
}
