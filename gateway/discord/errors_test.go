package discord

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/hermes-go/hermes/gateway"
	"github.com/hermes-go/hermes/gateway/discord/discordtest"
)

func TestRefusalsBecomeSendErrors(t *testing.T) {
	t.Parallel()
	srv := discordtest.NewServer(t)
	r := start(t, srv)
	ctx := context.Background()
	const ch = "3000000000000000001"
	srv.AddChannel(discordtest.Channel{ID: ch, GuildID: discordtest.Guild, Type: discordtest.GuildText})
	path := "/channels/" + ch + "/messages"

	for _, c := range []struct {
		name      string
		failure   discordtest.Failure
		status    int
		permanent bool
		retry     time.Duration
	}{
		{"cannot message this user", discordtest.CannotMessageUser(), 403, true, 0},
		{"missing access", discordtest.MissingAccess(), 403, true, 0},
		{"unknown channel", discordtest.UnknownChannel(), 404, true, 0},
		{"server error", discordtest.ServerError(), 500, false, 0},
		{"cloudflare 429", discordtest.Failure{Status: 429, RetryAfter: 7 * time.Second, HeaderOnly: true}, 429, false, 7 * time.Second},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv.Fail("POST", path, c.failure)
			before := len(srv.RequestsTo("POST", path))
			_, err := r.a.Send(ctx, gateway.Outbound{Chat: gateway.ChatRef{ChatID: ch}, Text: "hi"})
			se := sendErr(t, err)
			if se.Status != c.status || se.Permanent != c.permanent || se.RetryAfter != c.retry || se.Format || se.NotModified {
				t.Fatalf("SendError = %+v (%v), want status %d permanent %v retry %s", se, se, c.status, c.permanent, c.retry)
			}
			if n := len(srv.RequestsTo("POST", path)) - before; n != 1 {
				t.Fatalf("%d requests, want exactly one (no retry by discordgo)", n)
			}
		})
	}
}

func TestRateLimitReturnsAtOnceWithItsWait(t *testing.T) {
	t.Parallel()
	srv := discordtest.NewServer(t)
	r := start(t, srv)
	ctx := context.Background()
	chat := gateway.ChatRef{ChatID: srv.DMChannel(alice)}
	path := "/channels/" + chat.ChatID + "/messages"

	// An hour: were discordgo to sleep on it, the test would time out.
	srv.Fail("POST", path, discordtest.RateLimit(time.Hour+500*time.Millisecond))
	_, err := r.a.Send(ctx, gateway.Outbound{Chat: chat, Text: "hi"})
	se := sendErr(t, err)
	if se.RetryAfter != time.Hour+500*time.Millisecond || se.Status != http.StatusTooManyRequests || se.Permanent {
		t.Fatalf("SendError = %+v, want RetryAfter 1h0m0.5s from retry_after", se)
	}
	if n := len(srv.RequestsTo("POST", path)); n != 1 {
		t.Fatalf("%d requests, want one", n)
	}

	// The bucket is spent for that long: the next send is refused with
	// the remaining wait, without a request, instead of sleeping.
	_, err = r.a.Send(ctx, gateway.Outbound{Chat: chat, Text: "again"})
	se = sendErr(t, err)
	if se.RetryAfter < 59*time.Minute || se.RetryAfter > time.Hour+time.Second {
		t.Fatalf("second send: %+v, want the bucket's remaining wait", se)
	}
	if n := len(srv.RequestsTo("POST", path)); n != 1 {
		t.Fatalf("%d requests after the second send, want still one", n)
	}

	// Other channels have buckets of their own.
	other := gateway.ChatRef{ChatID: srv.DMChannel(bob)}
	if _, err := r.a.Send(ctx, gateway.Outbound{Chat: other, Text: "hi bob"}); err != nil {
		t.Fatalf("send to another channel: %v", err)
	}
}

func TestEditAndTypingRefusalsAreSendErrors(t *testing.T) {
	t.Parallel()
	srv := discordtest.NewServer(t)
	r := start(t, srv)
	ctx := context.Background()
	chat := gateway.ChatRef{ChatID: srv.DMChannel(alice)}
	theirs := srv.PushDM(alice, "mine, not the bot's")
	r.rec.message(t)

	se := sendErr(t, r.a.Edit(ctx, chat, theirs.ID, gateway.Outbound{Text: "hijacked"}))
	if se.Status != 403 || !se.Permanent {
		t.Fatalf("editing someone else's message: %+v", se)
	}
	se = sendErr(t, r.a.Edit(ctx, chat, "1", gateway.Outbound{Text: "gone"}))
	if se.Status != 404 || !se.Permanent {
		t.Fatalf("editing a deleted message: %+v", se)
	}
	srv.Fail("POST", "/channels/"+chat.ChatID+"/typing", discordtest.RateLimit(2*time.Second))
	se = sendErr(t, r.a.Typing(ctx, chat))
	if se.RetryAfter != 2*time.Second {
		t.Fatalf("typing rate limited: %+v", se)
	}
}

func TestUnreachableDiscordIsAPlainError(t *testing.T) {
	t.Parallel()
	srv := discordtest.NewServer(t)
	a := must(New(Options{Token: srv.Token(), APIURL: srv.URL()}))
	srv.Close()
	_, err := a.Send(context.Background(), gateway.Outbound{Chat: gateway.ChatRef{ChatID: "1"}, Text: "hi"})
	if err == nil {
		t.Fatal("send to a closed server succeeded")
	}
	var se *gateway.SendError
	if errors.As(err, &se) {
		t.Fatalf("a transport failure became %+v; the gateway must retry it", se)
	}
}

func TestTooManyButtonsIsRefusedBeforeSending(t *testing.T) {
	t.Parallel()
	srv := discordtest.NewServer(t)
	r := start(t, srv)
	chat := gateway.ChatRef{ChatID: srv.DMChannel(alice)}
	var rows [][]gateway.Button
	for i := range 6 {
		rows = append(rows, []gateway.Button{{Label: "b", Data: string(rune('a' + i))}})
	}
	_, err := r.a.Send(context.Background(), gateway.Outbound{Chat: chat, Text: "pick", Buttons: rows})
	if se := sendErr(t, err); !se.Permanent {
		t.Fatalf("six rows: %+v, want permanent", se)
	}
	if n := len(srv.RequestsTo("POST", "/channels/"+chat.ChatID+"/messages")); n != 0 {
		t.Fatalf("%d requests sent", n)
	}
}

func TestClassify(t *testing.T) {
	t.Parallel()
	cause := errors.New("discordgo's error")
	header := func(kv ...string) http.Header {
		h := http.Header{}
		for i := 0; i < len(kv); i += 2 {
			h.Set(kv[i], kv[i+1])
		}
		return h
	}
	for _, c := range []struct {
		name      string
		a         answer
		permanent bool
		retry     time.Duration
	}{
		{"retry_after in the body wins", answer{429, header("Retry-After", "9"), []byte(`{"message":"You are being rate limited.","retry_after":0.25,"global":false}`)}, false, 250 * time.Millisecond},
		{"Retry-After header", answer{429, header("Retry-After", "3"), []byte(`<html>error code: 1015</html>`)}, false, 3 * time.Second},
		{"bucket reset", answer{429, header("X-RateLimit-Reset-After", "1.5"), []byte(`{}`)}, false, 1500 * time.Millisecond},
		{"a 429 that says nothing waits a second", answer{429, header(), nil}, false, time.Second},
		{"unauthorized", answer{401, header(), []byte(`{"message":"401: Unauthorized","code":0}`)}, true, 0},
		{"missing permissions", answer{403, header(), []byte(`{"message":"Missing Permissions","code":50013}`)}, true, 0},
		{"unknown message", answer{404, header(), []byte(`{"message":"Unknown Message","code":10008}`)}, true, 0},
		{"too large", answer{413, header(), []byte(`{"message":"Request entity too large","code":40005}`)}, true, 0},
		{"invalid form body is not permanent", answer{400, header(), []byte(`{"message":"Invalid Form Body","code":50035}`)}, false, 0},
		{"bad gateway", answer{502, header(), []byte(`upstream error`)}, false, 0},
	} {
		err := classify("send", cause, &c.a)
		se, ok := gateway.AsSendError(err)
		if !ok {
			t.Fatalf("%s: %T %v", c.name, err, err)
		}
		if se.Status != c.a.status || se.Permanent != c.permanent || se.RetryAfter != c.retry {
			t.Errorf("%s: %+v, want permanent %v retry %s", c.name, se, c.permanent, c.retry)
		}
	}
	if err := classify("send", cause, &answer{}); !errors.Is(err, cause) {
		t.Fatalf("no answer: %v, want the transport error wrapped", err)
	} else if _, ok := gateway.AsSendError(err); ok {
		t.Fatal("no answer became a SendError")
	}
}
