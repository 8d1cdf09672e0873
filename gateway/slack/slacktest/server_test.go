package slacktest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/slack-go/slack"

	"github.com/hermes-go/hermes/gateway/slack/slacktest"
)

func client(srv *slacktest.Server, token string) *slack.Client {
	return slack.New(token, slack.OptionAPIURL(srv.APIURL()), slack.OptionAppLevelToken(slacktest.AppToken))
}

func slackError(err error) string {
	var se slack.SlackErrorResponse
	if errors.As(err, &se) {
		return se.Err
	}
	return fmt.Sprint(err)
}

func TestTokensAreCheckedAsSlackDoes(t *testing.T) {
	srv := slacktest.NewServer(t)
	ctx := context.Background()
	if _, err := client(srv, slacktest.AppToken).AuthTestContext(ctx); slackError(err) != "not_allowed_token_type" {
		t.Errorf("auth.test with the app token: %v", err)
	}
	if _, err := client(srv, "xoxb-other").AuthTestContext(ctx); slackError(err) != "invalid_auth" {
		t.Errorf("auth.test with an unknown token: %v", err)
	}
	botAsApp := slack.New(slacktest.BotToken, slack.OptionAPIURL(srv.APIURL()), slack.OptionAppLevelToken(slacktest.BotToken))
	if _, _, err := botAsApp.StartSocketModeContext(ctx); slackError(err) != "not_allowed_token_type" {
		t.Errorf("apps.connections.open with the bot token: %v", err)
	}
	r, err := client(srv, slacktest.BotToken).AuthTestContext(ctx)
	if err != nil || r.UserID != slacktest.BotUserID || r.Team != slacktest.TeamName || r.BotID != slacktest.BotID {
		t.Fatalf("auth.test = %+v, %v", r, err)
	}
}

func TestLimitsSlackEnforces(t *testing.T) {
	srv := slacktest.NewServer(t)
	api := client(srv, slacktest.BotToken)
	ctx := context.Background()
	button := func(id, label, value string) *slack.ButtonBlockElement {
		return slack.NewButtonBlockElement(id, value, slack.NewTextBlockObject(slack.PlainTextType, label, false, false))
	}
	section := func(text string) *slack.SectionBlock {
		return slack.NewSectionBlock(slack.NewTextBlockObject(slack.MarkdownType, text, false, false), nil, nil)
	}
	cases := []struct {
		name string
		opts []slack.MsgOption
		want string
	}{
		{"text over 40,000", []slack.MsgOption{slack.MsgOptionText(strings.Repeat("a", 40001), false)}, "msg_too_long"},
		{"section over 3,000", []slack.MsgOption{slack.MsgOptionBlocks(section(strings.Repeat("a", 3001)))}, "invalid_blocks"},
		{"label over 75", []slack.MsgOption{slack.MsgOptionBlocks(slack.NewActionBlock("b", button("a", strings.Repeat("L", 76), "v")))}, "invalid_blocks"},
		{"value over 2,000", []slack.MsgOption{slack.MsgOptionBlocks(slack.NewActionBlock("b", button("a", "ok", strings.Repeat("v", 2001))))}, "invalid_blocks"},
		{"action_id twice", []slack.MsgOption{slack.MsgOptionBlocks(
			slack.NewActionBlock("b1", button("a", "one", "1")), slack.NewActionBlock("b2", button("a", "two", "2")))}, "invalid_blocks"},
		{"nothing to show", []slack.MsgOption{slack.MsgOptionText("", false)}, "no_text"},
	}
	for _, c := range cases {
		if _, _, err := api.PostMessageContext(ctx, "C1", c.opts...); slackError(err) != c.want {
			t.Errorf("%s: %v, want %s", c.name, err, c.want)
		}
	}
	if _, _, err := api.PostMessageContext(ctx, "C1", slack.MsgOptionText(strings.Repeat("a", 40000), false),
		slack.MsgOptionBlocks(section(strings.Repeat("a", 3000)), slack.NewActionBlock("b", button("a", strings.Repeat("L", 75), strings.Repeat("v", 2000))))); err != nil {
		t.Fatalf("a message at every limit: %v", err)
	}
}

func TestUpdateKeepsBlocksUnlessItSendsSome(t *testing.T) {
	srv := slacktest.NewServer(t)
	api := client(srv, slacktest.BotToken)
	ctx := context.Background()
	btn := slack.NewButtonBlockElement("a", "v", slack.NewTextBlockObject(slack.PlainTextType, "Go", false, false))
	_, ts, err := api.PostMessageContext(ctx, "C1", slack.MsgOptionText("pick", false), slack.MsgOptionBlocks(slack.NewActionBlock("b", btn)))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := api.UpdateMessageContext(ctx, "C1", ts, slack.MsgOptionText("still pick", false)); err != nil {
		t.Fatal(err)
	}
	if m, _ := srv.Message("C1", ts); m.Text != "still pick" || len(m.Buttons) != 1 {
		t.Fatalf("after a text-only update: %+v, want the buttons kept", m)
	}
	if _, _, _, err := api.UpdateMessageContext(ctx, "C1", ts, slack.MsgOptionText("done", false), slack.MsgOptionBlocks()); err != nil {
		t.Fatal(err)
	}
	if m, _ := srv.Message("C1", ts); m.Text != "done" || len(m.Buttons) != 0 || m.Edits != 2 {
		t.Fatalf("after an update with no blocks: %+v, want the buttons gone", m)
	}
	if _, _, _, err := api.UpdateMessageContext(ctx, "C1", "1.000", slack.MsgOptionText("x", false)); slackError(err) != "message_not_found" {
		t.Fatalf("update of a missing message: %v", err)
	}
	p := srv.Say("C1", "U1", "a person's")
	if _, _, _, err := api.UpdateMessageContext(ctx, "C1", p.TS, slack.MsgOptionText("x", false)); slackError(err) != "cant_update_message" {
		t.Fatalf("update of a person's message: %v", err)
	}
}

func TestScriptedFailuresAnswerTheNextCalls(t *testing.T) {
	srv := slacktest.NewServer(t)
	api := client(srv, slacktest.BotToken)
	ctx := context.Background()
	srv.Fail("chat.postMessage", slacktest.Failure{RetryAfter: 3 * time.Second}, slacktest.Failure{Error: "channel_not_found"})
	_, _, err := api.PostMessageContext(ctx, "C1", slack.MsgOptionText("a", false))
	var rl *slack.RateLimitedError
	if !errors.As(err, &rl) || rl.RetryAfter != 3*time.Second {
		t.Fatalf("first call: %v, want a 429 with Retry-After 3", err)
	}
	if _, _, err := api.PostMessageContext(ctx, "C1", slack.MsgOptionText("b", false)); slackError(err) != "channel_not_found" {
		t.Fatalf("second call: %v", err)
	}
	if _, _, err := api.PostMessageContext(ctx, "C1", slack.MsgOptionText("c", false)); err != nil {
		t.Fatalf("third call: %v", err)
	}
	calls := srv.Calls("chat.postMessage")
	if len(calls) != 3 || calls[0].Error != "http 429" || calls[1].Error != "channel_not_found" || calls[2].Error != "" || calls[2].Params.Get("text") != "c" {
		t.Fatalf("calls = %+v", calls)
	}
	if n := len(srv.BotMessages("C1")); n != 1 {
		t.Fatalf("%d messages posted, want only the third", n)
	}
}

func TestFileDownloadNeedsTheBotToken(t *testing.T) {
	srv := slacktest.NewServer(t)
	id := srv.AddFile("a.txt", "text/plain", []byte("secret notes"))
	srv.Post(slacktest.UserMessage{Channel: "DU1", User: "U1", Files: []string{id}})
	conn := dial(t, srv)
	readFrame(t, conn) // hello
	env := readFrame(t, conn)
	var payload struct {
		Event struct {
			Files []slack.File `json:"files"`
		} `json:"event"`
	}
	if err := json.Unmarshal(env.Payload, &payload); err != nil || len(payload.Event.Files) != 1 {
		t.Fatalf("envelope %s: %v", env.Payload, err)
	}
	u := payload.Event.Files[0].URLPrivateDownload
	var buf bytes.Buffer
	if err := client(srv, slacktest.BotToken).GetFileContext(context.Background(), u, &buf); err != nil || buf.String() != "secret notes" {
		t.Fatalf("download with the bot token: %q, %v", buf.String(), err)
	}
	buf.Reset()
	err := client(srv, "xoxb-other").GetFileContext(context.Background(), u, &buf)
	if err == nil || !strings.Contains(err.Error(), "sign-in page") {
		t.Fatalf("download with another token: %q, %v", buf.String(), err)
	}
}

type frame struct {
	Type         string          `json:"type"`
	EnvelopeID   string          `json:"envelope_id"`
	Payload      json.RawMessage `json:"payload"`
	RetryAttempt int             `json:"retry_attempt"`
	RetryReason  string          `json:"retry_reason"`
	Reason       string          `json:"reason"`
}

func dial(t *testing.T, srv *slacktest.Server) *websocket.Conn {
	t.Helper()
	_, u, err := client(srv, slacktest.BotToken).StartSocketModeContext(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	conn, _, err := websocket.DefaultDialer.Dial(u, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

func readFrame(t *testing.T, conn *websocket.Conn) frame {
	t.Helper()
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	var f frame
	if err := conn.ReadJSON(&f); err != nil {
		t.Fatal(err)
	}
	return f
}

func TestSocketRedeliversWhatWasNotAcknowledged(t *testing.T) {
	srv := slacktest.NewServer(t)
	first := dial(t, srv)
	if f := readFrame(t, first); f.Type != "hello" {
		t.Fatalf("first frame %+v, want hello", f)
	}
	p := srv.DM("U1", "one")
	if f := readFrame(t, first); f.Type != "events_api" || f.EnvelopeID != p.Envelopes[0] || f.RetryAttempt != 0 {
		t.Fatalf("frame %+v", f)
	}
	srv.DropSocket() // before the ack

	second := dial(t, srv)
	readFrame(t, second) // hello
	f := readFrame(t, second)
	if f.EnvelopeID != p.Envelopes[0] || f.RetryAttempt != 1 || f.RetryReason != "timeout" {
		t.Fatalf("redelivery %+v, want retry_attempt 1", f)
	}
	if err := second.WriteJSON(map[string]string{"envelope_id": f.EnvelopeID}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Wait(ctx, func() bool { return srv.Acked(p.Envelopes[0]) }); err != nil {
		t.Fatal(err)
	}
	second.Close()

	third := dial(t, srv)
	readFrame(t, third) // hello
	q := srv.DM("U1", "two")
	if f := readFrame(t, third); f.EnvelopeID != q.Envelopes[0] {
		t.Fatalf("after the ack, the next socket got %+v, want only the new envelope", f)
	}
	if d := srv.Deliveries(p.Envelopes[0]); len(d) != 2 || d[0].Socket != 1 || d[1].Socket != 2 {
		t.Fatalf("deliveries %+v", d)
	}
}

func TestDisconnectedSocketGetsNothingMore(t *testing.T) {
	srv := slacktest.NewServer(t)
	old := dial(t, srv)
	readFrame(t, old)
	if !srv.Disconnect("refresh_requested") {
		t.Fatal("no socket")
	}
	if f := readFrame(t, old); f.Type != "disconnect" || f.Reason != "refresh_requested" {
		t.Fatalf("frame %+v, want the disconnect", f)
	}
	p := srv.DM("U1", "between sockets")
	if d := srv.Deliveries(p.Envelopes[0]); len(d) != 0 {
		t.Fatalf("an envelope went to the socket asked to go away: %+v", d)
	}
	fresh := dial(t, srv)
	readFrame(t, fresh)
	if f := readFrame(t, fresh); f.EnvelopeID != p.Envelopes[0] || f.RetryAttempt != 0 {
		t.Fatalf("new socket got %+v", f)
	}
}

func TestATicketOpensOneSocket(t *testing.T) {
	srv := slacktest.NewServer(t)
	srv.AllowUnexpected()
	_, u, err := client(srv, slacktest.BotToken).StartSocketModeContext(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	conn, _, err := websocket.DefaultDialer.Dial(u, nil)
	if err != nil {
		t.Fatal(err)
	}
	conn.Close()
	if _, _, err := websocket.DefaultDialer.Dial(u, nil); err == nil {
		t.Fatal("a used ticket opened a second socket")
	}
	if len(srv.Unexpected()) != 1 {
		t.Fatalf("unexpected = %v", srv.Unexpected())
	}
}

// spyTB catches what the server reports at cleanup.
type spyTB struct {
	testing.TB
	cleanups []func()
	errs     []string
}

func (s *spyTB) Cleanup(f func()) { s.cleanups = append(s.cleanups, f) }
func (s *spyTB) Errorf(format string, args ...any) {
	s.errs = append(s.errs, fmt.Sprintf(format, args...))
}

func TestUnexpectedRequestsFailTheTest(t *testing.T) {
	spy := &spyTB{TB: t}
	srv := slacktest.NewServer(spy)
	if _, err := client(srv, slacktest.BotToken).GetConversationHistoryContext(context.Background(), &slack.GetConversationHistoryParameters{ChannelID: "C1"}); slackError(err) != "unknown_method" {
		t.Fatalf("unknown method answered %v", err)
	}
	for _, f := range spy.cleanups {
		f()
	}
	if len(spy.errs) != 1 || !strings.Contains(spy.errs[0], "conversations.history") {
		t.Fatalf("cleanup reported %q, want the unknown method", spy.errs)
	}
}
