package matrix

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/gateway"
	"github.com/hermes-go/hermes/gateway/matrix/matrixtest"
)

func newAdapter(t *testing.T, srv *matrixtest.Server) *Adapter {
	t.Helper()
	a, err := New(Options{Homeserver: srv.URL(), AccessToken: srv.Token()})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// Markdown goes out as a plain body with its HTML in formatted_body;
// plain text has no formatted_body; a reply and a thread carry their
// relations.
func TestSendFormatsRepliesAndThreads(t *testing.T) {
	srv := matrixtest.NewServer(t)
	room := srv.AddRoom(alice)
	a := newAdapter(t, srv)
	ctx := context.Background()
	q := srv.Say(alice, room, "question")
	if _, err := a.Send(ctx, gateway.Outbound{Chat: gateway.ChatRef{ChatID: room}, Text: "some **bold** text", ReplyTo: q.ID}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Send(ctx, gateway.Outbound{Chat: gateway.ChatRef{ChatID: room, ThreadID: q.ID}, Text: "**not bold**", Plain: true}); err != nil {
		t.Fatal(err)
	}
	ms := botMessages(srv, room)
	if len(ms) != 2 {
		t.Fatalf("%d messages", len(ms))
	}
	if ms[0].Body != "some **bold** text" || ms[0].FormattedBody != "some <b>bold</b> text" || ms[0].MsgType != "m.text" {
		t.Fatalf("markdown sent as %+v", ms[0])
	}
	rel := ms[0].Content["m.relates_to"].(map[string]any)
	if rel["m.in_reply_to"].(map[string]any)["event_id"] != q.ID || rel["rel_type"] != nil {
		t.Fatalf("the reply relates as %v", rel)
	}
	if ms[1].Body != "**not bold**" || ms[1].FormattedBody != "" {
		t.Fatalf("plain text sent as %+v", ms[1])
	}
	rel = ms[1].Content["m.relates_to"].(map[string]any)
	if rel["rel_type"] != "m.thread" || rel["event_id"] != q.ID {
		t.Fatalf("the thread's message relates as %v", rel)
	}
}

// A send whose answer was lost (the homeserver posted it) is retried
// with the same transaction id and posted once; the same text sent again
// afterwards is a second message.
func TestARetriedSendPostsOnce(t *testing.T) {
	srv := matrixtest.NewServer(t)
	room := srv.AddRoom(alice)
	a := newAdapter(t, srv)
	ctx := context.Background()
	out := gateway.Outbound{Chat: gateway.ChatRef{ChatID: room}, Text: "done"}
	srv.LoseNextResponse()
	if _, err := a.Send(ctx, out); err == nil {
		t.Fatal("a send whose answer was lost succeeded")
	} else if _, ok := gateway.AsSendError(err); ok {
		t.Fatalf("a lost answer is a platform refusal: %v", err)
	}
	first, err := a.Send(ctx, out)
	if err != nil {
		t.Fatal(err)
	}
	if ms := botMessages(srv, room); len(ms) != 1 || ms[0].ID != first.MessageID {
		t.Fatalf("the retried send posted %d messages", len(ms))
	}
	second, err := a.Send(ctx, out)
	if err != nil {
		t.Fatal(err)
	}
	if ms := botMessages(srv, room); len(ms) != 2 || second.MessageID == first.MessageID {
		t.Fatalf("a second identical reply: %d messages", len(ms))
	}
	var txns []string
	for _, r := range srv.Requests() {
		if r.Kind == "send" {
			txns = append(txns, r.Txn)
		}
	}
	if len(txns) != 3 || txns[0] != txns[1] || txns[1] == txns[2] {
		t.Fatalf("transaction ids %q: want the retry to reuse the first", txns)
	}
}

// Two processes never share transaction ids: the homeserver would
// answer the second's send with the first's event and post nothing.
func TestTransactionIDsDifferBetweenProcesses(t *testing.T) {
	srv := matrixtest.NewServer(t)
	room := srv.AddRoom(alice)
	for range 2 {
		if _, err := newAdapter(t, srv).Send(context.Background(), gateway.Outbound{Chat: gateway.ChatRef{ChatID: room}, Text: "hi"}); err != nil {
			t.Fatal(err)
		}
	}
	if ms := botMessages(srv, room); len(ms) != 2 {
		t.Fatalf("two processes' sends posted %d messages", len(ms))
	}
}

// M_LIMIT_EXCEEDED is a SendError with the homeserver's retry_after_ms;
// M_FORBIDDEN (a room the bot is not in) is permanent.
func TestSendErrorsAreClassified(t *testing.T) {
	srv := matrixtest.NewServer(t)
	room := srv.AddRoom(alice)
	elsewhere := srv.Invite(bob) // the bot is invited, not joined
	a := newAdapter(t, srv)
	ctx := context.Background()
	srv.RateLimitNextSend(1500 * time.Millisecond)
	_, err := a.Send(ctx, gateway.Outbound{Chat: gateway.ChatRef{ChatID: room}, Text: "hi"})
	se, ok := gateway.AsSendError(err)
	if !ok || se.RetryAfter != 1500*time.Millisecond || se.Permanent || se.Status != 429 {
		t.Fatalf("a rate limit: %#v", err)
	}
	_, err = a.Send(ctx, gateway.Outbound{Chat: gateway.ChatRef{ChatID: elsewhere}, Text: "hi"})
	if se, ok := gateway.AsSendError(err); !ok || !se.Permanent || se.RetryAfter != 0 || !strings.Contains(err.Error(), "M_FORBIDDEN") {
		t.Fatalf("a forbidden send: %#v", err)
	}
}

// An edit replaces the text (m.replace), and members read each version.
func TestEditReplacesTheText(t *testing.T) {
	srv := matrixtest.NewServer(t)
	room := srv.AddRoom(alice)
	a := newAdapter(t, srv)
	ctx := context.Background()
	chat := gateway.ChatRef{ChatID: room}
	sent, err := a.Send(ctx, gateway.Outbound{Chat: chat, Text: "draft"})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Edit(ctx, chat, sent.MessageID, gateway.Outbound{Chat: chat, Text: "draft, *finished*"}); err != nil {
		t.Fatal(err)
	}
	ms := botMessages(srv, room)
	if len(ms) != 1 || strings.Join(ms[0].History, "|") != "draft|draft, *finished*" || ms[0].FormattedBody != "draft, <i>finished</i>" {
		t.Fatalf("after the edit: %+v", ms)
	}
}

// A delivery target or home channel names a room by its id, which holds
// a colon: split as the gateway splits "CHAT[:THREAD]", it still reaches
// the room, and a thread after it is the thread.
func TestARoomIDTargetReachesTheRoom(t *testing.T) {
	srv := matrixtest.NewServer(t)
	room := srv.AddRoom(alice)
	a := newAdapter(t, srv)
	chat, thread := config.SplitChat("matrix", room)
	if _, err := a.Send(context.Background(), gateway.Outbound{Chat: gateway.ChatRef{ChatID: chat, ThreadID: thread}, Text: "report"}); err != nil {
		t.Fatal(err)
	}
	if ms := botMessages(srv, room); len(ms) != 1 || ms[0].Body != "report" {
		t.Fatalf("the room got %+v", ms)
	}
	if chat, thread := config.SplitChat("matrix", room+":$ev1"); chat != room || thread != "$ev1" {
		t.Fatalf("with a thread: %q %q", chat, thread)
	}
}

// An uploaded file is an m.image or m.file holding the upload, with the
// caption as its body.
func TestUploadSendsTheFile(t *testing.T) {
	srv := matrixtest.NewServer(t)
	room := srv.AddRoom(alice)
	a := newAdapter(t, srv)
	path := filepath.Join(t.TempDir(), "chart.png")
	os.WriteFile(path, []byte("png bytes"), 0o600)
	if _, err := a.Upload(context.Background(), gateway.ChatRef{ChatID: room}, gateway.File{Path: path, Caption: "the chart"}); err != nil {
		t.Fatal(err)
	}
	ms := botMessages(srv, room)
	if len(ms) != 1 || ms[0].MsgType != "m.image" || ms[0].Body != "the chart" {
		t.Fatalf("uploaded as %+v", ms)
	}
	data, ok := srv.Media(ms[0].Content["url"].(string))
	if !ok || string(data) != "png bytes" {
		t.Fatalf("the upload holds %q", data)
	}
}

// Line breaks survive in HTML, except inside code blocks, which keep
// theirs.
func TestHTMLKeepsLineBreaks(t *testing.T) {
	got := toHTML("a **b**\nc\n\n```\nx\ny\n```\nafter")
	if want := "a <b>b</b><br>c<br><br><pre>x\ny</pre><br>after"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	if got := toHTML("plain & <simple>"); strings.Contains(got, "<") {
		t.Fatalf("plain text became %q", got)
	}
}
