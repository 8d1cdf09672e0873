package slack_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/hermes-go/hermes/gateway"
	"github.com/hermes-go/hermes/gateway/slack"
	"github.com/hermes-go/hermes/gateway/slack/slacktest"
)

func TestConnectsAsTheBotInItsWorkspace(t *testing.T) {
	srv := slacktest.NewServer(t)
	f := start(t, srv, nil)
	f.connected(t)
	s := f.rec.last()
	if s.Platform != "slack" || s.Detail != "@hermes in Hermes Test" || s.Since.IsZero() {
		t.Fatalf("state = %+v, want connected as @hermes in Hermes Test", s)
	}
	if f.a.Platform() != "slack" {
		t.Fatalf("Platform() = %q", f.a.Platform())
	}
	if err := f.stop(); err != nil {
		t.Fatalf("Run after its context ended: %v", err)
	}
	if s := f.rec.last(); s.Connected || s.Detail != "stopped" {
		t.Fatalf("state after stop = %+v", s)
	}
}

func TestDirectMessageIsAddressedAndAcknowledged(t *testing.T) {
	srv := slacktest.NewServer(t)
	srv.AddUser("U1", "Ada")
	f := start(t, srv, nil)
	f.connected(t)

	p := srv.DM("U1", "hello <there> & you")
	got := f.handled(t, 1)[0]
	want := gateway.Inbound{
		Platform: "slack", Chat: gateway.ChatRef{ChatID: "DU1"}, ChatType: gateway.DM,
		MessageID: p.MessageID, UserID: "U1", UserName: "Ada", Text: "hello <there> & you", Addressed: true,
	}
	if got.Platform != want.Platform || got.Chat != want.Chat || got.ChatType != want.ChatType ||
		got.MessageID != want.MessageID || got.UserID != want.UserID || got.UserName != want.UserName ||
		got.Text != want.Text || got.Addressed != want.Addressed {
		t.Fatalf("inbound = %+v\nwant      %+v", got, want)
	}
	if got.MessageID != "DU1:"+p.TS {
		t.Fatalf("MessageID = %q, want channel:ts", got.MessageID)
	}
	f.acked(t, p)
}

func TestChannelMentionIsHandledOnceAndStripped(t *testing.T) {
	for _, mentionFirst := range []bool{false, true} {
		name := "message event first"
		if mentionFirst {
			name = "app_mention first"
		}
		t.Run(name, func(t *testing.T) {
			srv := slacktest.NewServer(t)
			f := start(t, srv, nil)
			f.connected(t)

			p := srv.Post(slacktest.UserMessage{Channel: "C1", User: "U2",
				Text: "<@" + slacktest.BotUserID + "> what is the time?", MentionFirst: mentionFirst})
			if len(p.Envelopes) != 2 {
				t.Fatalf("Slack sends a message and an app_mention event; the fake sent %d", len(p.Envelopes))
			}
			f.acked(t, p) // both envelopes handled
			// A later message proves nothing else was on its way.
			srv.DM("U2", "later")
			msgs := f.handled(t, 2)
			if len(msgs) != 2 || msgs[1].Text != "later" {
				t.Fatalf("messages = %+v, want the mention once then the DM", msgs)
			}
			got := msgs[0]
			if got.ChatType != gateway.Group || !got.Addressed || got.Text != "what is the time?" ||
				got.Chat != (gateway.ChatRef{ChatID: "C1"}) || got.MessageID != "C1:"+p.TS {
				t.Fatalf("mention = %+v", got)
			}
		})
	}
}

func TestChannelMessageWithoutMentionIsNotAddressed(t *testing.T) {
	srv := slacktest.NewServer(t)
	f := start(t, srv, nil)
	f.connected(t)
	srv.Say("C1", "U2", "talking among ourselves about <@UOTHER>")
	got := f.handled(t, 1)[0]
	if got.Addressed || got.ChatType != gateway.Group || got.Text != "talking among ourselves about <@UOTHER>" {
		t.Fatalf("inbound = %+v, want a group message not addressed, text untouched", got)
	}
}

func TestThreadRepliesKeepTheirThreadAndReachTheBotInItsThreads(t *testing.T) {
	srv := slacktest.NewServer(t)
	f := start(t, srv, nil)
	f.connected(t)
	ctx := context.Background()

	// A thread the bot replied in: a person's mention, the bot's answer in its thread.
	q := srv.Mention("C1", "U1", "help")
	f.handled(t, 1)
	if _, err := f.a.Send(ctx, gateway.Outbound{Chat: gateway.ChatRef{ChatID: "C1", ThreadID: q.TS}, Text: "on it"}); err != nil {
		t.Fatal(err)
	}
	// A thread the bot started: its own top-level message.
	top, err := f.a.Send(ctx, gateway.Outbound{Chat: gateway.ChatRef{ChatID: "C1"}, Text: "announcement"})
	if err != nil {
		t.Fatal(err)
	}
	// A thread among people only.
	other := srv.Say("C1", "U3", "lunch?")

	srv.Reply("C1", q.TS, "U1", "thanks, and one more thing")
	srv.Reply("C1", top.MessageID, "U2", "question about the announcement")
	srv.Reply("C1", other.TS, "U4", "yes")
	msgs := f.handled(t, 5)

	cases := []struct {
		in        gateway.Inbound
		thread    string
		addressed bool
	}{
		{msgs[2], q.TS, true},
		{msgs[3], top.MessageID, true},
		{msgs[4], other.TS, false},
	}
	for i, c := range cases {
		if c.in.Chat != (gateway.ChatRef{ChatID: "C1", ThreadID: c.thread}) || c.in.Addressed != c.addressed {
			t.Errorf("reply %d = chat %+v addressed %v, want thread %s addressed %v", i, c.in.Chat, c.in.Addressed, c.thread, c.addressed)
		}
	}
}

// memKV is a gateway.KV in memory, shared by the adapters of a test.
type memKV struct{ m map[string]string }

func (k *memKV) Get(_ context.Context, key string) (string, bool, error) {
	v, ok := k.m[key]
	return v, ok, nil
}

func (k *memKV) Set(_ context.Context, key, value string) error {
	k.m[key] = value
	return nil
}

func TestThreadsTheBotRepliedInOutliveARestart(t *testing.T) {
	srv := slacktest.NewServer(t)
	kv := &memKV{m: map[string]string{}}
	first := start(t, srv, nil)
	first.connected(t)
	// Another person started the thread; the bot replied in it.
	root := srv.Say("C1", "U1", "deploy failed")
	first.handled(t, 1)
	if _, err := first.a.Send(context.Background(), gateway.Outbound{Chat: gateway.ChatRef{ChatID: "C1", ThreadID: root.TS}, Text: "looking"}); err != nil {
		t.Fatal(err)
	}
	_ = first.stop()

	// Without the KV, a new adapter no longer knows the thread...
	fresh := start(t, srv, nil)
	fresh.connected(t)
	srv.Reply("C1", root.TS, "U1", "any news?")
	if got := fresh.handled(t, 1)[0]; got.Addressed {
		t.Fatalf("an adapter without the thread in memory took the reply as addressed: %+v", got)
	}
	_ = fresh.stop()

	// ...with it, the thread is remembered across the restart.
	withKV := start(t, srv, func(o *slack.Options) { o.KV = kv })
	withKV.connected(t)
	if _, err := withKV.a.Send(context.Background(), gateway.Outbound{Chat: gateway.ChatRef{ChatID: "C1", ThreadID: root.TS}, Text: "still looking"}); err != nil {
		t.Fatal(err)
	}
	_ = withKV.stop()
	restarted := start(t, srv, func(o *slack.Options) { o.KV = kv })
	restarted.connected(t)
	srv.Reply("C1", root.TS, "U1", "and now?")
	if got := restarted.handled(t, 1)[0]; !got.Addressed || got.Text != "and now?" {
		t.Fatalf("after a restart with the KV, reply = %+v, want addressed", got)
	}
}

func TestOnlyPeoplesNewMessagesAreHandled(t *testing.T) {
	srv := slacktest.NewServer(t)
	f := start(t, srv, nil)
	f.connected(t)

	person := srv.Say("C1", "U1", "first")
	f.handled(t, 1)
	ignored := []slacktest.Posted{
		srv.EditMessage("C1", person.TS, "first, edited"),
		srv.Post(slacktest.UserMessage{Channel: "C1", User: "UOTHERBOT", BotID: "BOTHER", Text: "<@" + slacktest.BotUserID + "> beep"}),
		srv.Post(slacktest.UserMessage{Channel: "C1", User: slacktest.BotUserID, BotID: slacktest.BotID, Text: "my own echo"}),
	}
	for _, sub := range []string{"message_deleted", "channel_join", "bot_message", "me_message"} {
		ignored = append(ignored, srv.PushEvent(map[string]any{
			"type": "message", "subtype": sub, "channel": "C1", "channel_type": "channel", "user": "U1",
			"text": "<@" + slacktest.BotUserID + "> " + sub, "ts": "1700009999.000100",
		}))
	}
	broadcast := srv.PushEvent(map[string]any{
		"type": "message", "subtype": "thread_broadcast", "channel": "C1", "channel_type": "channel", "user": "U1",
		"text": "also sent to the channel", "ts": "1700009999.000200", "thread_ts": person.TS,
	})
	f.acked(t, broadcast)
	last := srv.DM("U1", "after")
	f.acked(t, last)
	for _, p := range ignored {
		f.acked(t, p) // ignored, but confirmed so that Slack does not send them again
	}
	msgs := f.rec.messages()
	if len(msgs) != 3 || msgs[0].Text != "first" || msgs[1].Text != "also sent to the channel" || msgs[2].Text != "after" {
		t.Fatalf("messages = %+v, want only the people's new messages", msgs)
	}
}

func TestFilesBecomeAttachmentsDownloadedWithTheBotToken(t *testing.T) {
	srv := slacktest.NewServer(t)
	f := start(t, srv, nil)
	f.connected(t)
	img := srv.AddFile("chart.png", "image/png", []byte("\x89PNG fake image"))
	doc := srv.AddFile("notes.txt", "text/plain", []byte("some notes"))
	srv.Post(slacktest.UserMessage{Channel: "DU1", User: "U1", Text: "look", Files: []string{img, doc}})
	got := f.handled(t, 1)[0]
	if got.Text != "look" || len(got.Attachments) != 2 {
		t.Fatalf("inbound = %+v, want the text and two attachments", got)
	}
	want := []struct{ kind, name, mime, content string }{
		{"image", "chart.png", "image/png", "\x89PNG fake image"},
		{"file", "notes.txt", "text/plain", "some notes"},
	}
	for i, w := range want {
		at := got.Attachments[i]
		if at.Kind != w.kind || at.Name != w.name || at.MIME != w.mime || at.Size != int64(len(w.content)) {
			t.Errorf("attachment %d = %+v, want %+v", i, at, w)
		}
		rc, err := at.Open(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil || string(b) != w.content {
			t.Errorf("attachment %d content = %q, %v; want %q", i, b, err, w.content)
		}
	}
	for _, c := range srv.Calls("files.download") {
		if c.Token != "Bearer "+slacktest.BotToken {
			t.Errorf("file downloaded with Authorization %q, want the bot token", c.Token)
		}
	}
	if n := len(srv.Calls("files.download")); n != 2 {
		t.Errorf("%d downloads, want 2", n)
	}
}

func TestFilesOutsideSlackNeverGetTheToken(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Header.Get("Authorization"))
		mu.Unlock()
		_, _ = w.Write([]byte("data"))
	}))
	defer elsewhere.Close()

	srv := slacktest.NewServer(t)
	f := start(t, srv, nil)
	f.connected(t)
	srv.PushEvent(map[string]any{
		"type": "message", "subtype": "file_share", "channel": "DU1", "channel_type": "im", "user": "U1",
		"text": "two files", "ts": "1700009999.000100",
		"files": []map[string]any{
			{"id": "F1", "name": "x.txt", "mimetype": "text/plain", "size": 4, "mode": "hosted", "url_private": elsewhere.URL + "/x.txt"},
			{"id": "F2", "name": "y.txt", "mimetype": "text/plain", "size": 4, "mode": "external", "is_external": true, "url_private": elsewhere.URL + "/y.txt"},
		},
	})
	got := f.handled(t, 1)[0]
	if len(got.Attachments) != 1 || got.Attachments[0].Name != "x.txt" {
		t.Fatalf("attachments = %+v, want the hosted file only", got.Attachments)
	}
	rc, err := got.Attachments[0].Open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	_, err = io.ReadAll(rc)
	rc.Close()
	if err == nil || !strings.Contains(err.Error(), "refusing to send the token") {
		t.Fatalf("reading a file outside Slack: %v, want a refusal", err)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, auth := range seen {
		if strings.Contains(auth, slacktest.BotToken) {
			t.Fatalf("the bot token went to %s", elsewhere.URL)
		}
	}
}
