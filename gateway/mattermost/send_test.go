package mattermost_test

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/gateway"
	"github.com/hermes-go/hermes/gateway/mattermost/mattermosttest"
)

// Send posts, Edit patches: the members read each version, plain text
// shows as written, and an edit without buttons removes them.
func TestSendAndEdit(t *testing.T) {
	srv := newServer(t)
	a := newAdapter(t, srv, nil)
	run(t, a, newRecorder()) // the button endpoint
	ctx := context.Background()
	chat := gateway.ChatRef{ChatID: dmA}
	sent, err := a.Send(ctx, gateway.Outbound{Chat: chat, Text: "run `rm -rf *_old`?", Plain: true,
		Buttons: [][]gateway.Button{{{Label: "Yes", Data: "a:1:yes"}, {Label: "No", Data: "a:1:no"}}}})
	if err != nil {
		t.Fatal(err)
	}
	p, ok := srv.Post(sent.MessageID)
	if !ok || p.Shown() != "run `rm -rf *_old`?" || len(p.Buttons) != 1 || len(p.Buttons[0]) != 2 || p.Buttons[0][1].Label != "No" {
		t.Fatalf("the post is %+v (shown %q)", p, p.Shown())
	}
	if err := a.Edit(ctx, chat, sent.MessageID, gateway.Outbound{Chat: chat, Text: "**done**"}); err != nil {
		t.Fatal(err)
	}
	p, _ = srv.Post(sent.MessageID)
	if p.Message != "**done**" || len(p.Buttons) != 0 || len(p.History) != 2 {
		t.Fatalf("after the edit: %+v", p)
	}
}

// The server's refusals are classified for the gateway: a 429 carries its
// wait, a channel closed to the bot or gone is permanent, a 5xx is
// retried.
func TestSendErrors(t *testing.T) {
	srv := newServer(t)
	a := newAdapter(t, srv, nil)
	ctx := context.Background()
	out := gateway.Outbound{Chat: gateway.ChatRef{ChatID: dmA}, Text: "hi"}

	srv.Fail("posts.create", mattermosttest.Failure{RetryAfter: 3 * time.Second})
	_, err := a.Send(ctx, out)
	if se, ok := gateway.AsSendError(err); !ok || se.RetryAfter != 3*time.Second || se.Status != http.StatusTooManyRequests {
		t.Fatalf("a 429: %v", err)
	}
	srv.Fail("posts.create", mattermosttest.Failure{Status: http.StatusForbidden})
	_, err = a.Send(ctx, out)
	if se, ok := gateway.AsSendError(err); !ok || !se.Permanent {
		t.Fatalf("a 403: %v", err)
	}
	_, err = a.Send(ctx, gateway.Outbound{Chat: gateway.ChatRef{ChatID: "nochannel"}, Text: "hi"})
	if se, ok := gateway.AsSendError(err); !ok || !se.Permanent {
		t.Fatalf("a channel the bot is not in: %v", err)
	}
	err = a.Edit(ctx, out.Chat, "nopost", out)
	if se, ok := gateway.AsSendError(err); !ok || !se.Permanent || se.Status != http.StatusNotFound {
		t.Fatalf("an edit of a post that is gone: %v", err)
	}
	srv.Fail("posts.create", mattermosttest.Failure{Status: http.StatusServiceUnavailable})
	_, err = a.Send(ctx, out)
	if _, ok := gateway.AsSendError(err); ok || err == nil || !strings.Contains(err.Error(), "503") {
		t.Fatalf("a 503: %v", err)
	}
	if _, err := a.Send(ctx, out); err != nil {
		t.Fatalf("after the failures: %v", err)
	}
}

// Upload sends the file, then a post holding it with the caption.
func TestUpload(t *testing.T) {
	srv := newServer(t)
	a := newAdapter(t, srv, nil)
	path := filepath.Join(t.TempDir(), "report.txt")
	if err := os.WriteFile(path, []byte("all green"), 0o600); err != nil {
		t.Fatal(err)
	}
	sent, err := a.Upload(context.Background(), gateway.ChatRef{ChatID: team}, gateway.File{Path: path, Caption: "the report"})
	if err != nil {
		t.Fatal(err)
	}
	p, ok := srv.Post(sent.MessageID)
	if !ok || p.Shown() != "the report" || len(p.FileIDs) != 1 {
		t.Fatalf("the post is %+v", p)
	}
}

// Outside Run no endpoint answers buttons, so none are posted: the text
// goes alone rather than with buttons that could only fail.
func TestButtonsNeedTheEndpoint(t *testing.T) {
	srv := newServer(t)
	a := newAdapter(t, srv, nil)
	sent, err := a.Send(context.Background(), gateway.Outbound{Chat: gateway.ChatRef{ChatID: dmA}, Text: "Approve?",
		Buttons: [][]gateway.Button{{{Label: "Once", Data: "a:1:once"}}}})
	if err != nil {
		t.Fatal(err)
	}
	if p, _ := srv.Post(sent.MessageID); p.Message != "Approve?" || len(p.Buttons) != 0 {
		t.Fatalf("the post %+v", p)
	}
}
