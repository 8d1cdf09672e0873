package discord

import (
	"context"
	"encoding/json"
	"io"
	"testing"

	"github.com/hermes-go/hermes/gateway"
	"github.com/hermes-go/hermes/gateway/discord/discordtest"
)

func TestDirectMessageReachesTheHandler(t *testing.T) {
	t.Parallel()
	srv := discordtest.NewServer(t)
	r := start(t, srv)

	sent := srv.PushDM(alice, "hello *there*")
	got := r.rec.message(t)
	want := gateway.Inbound{
		Platform: "discord", Chat: gateway.ChatRef{ChatID: srv.DMChannel(alice)}, ChatType: gateway.DM,
		MessageID: sent.ID, UserID: alice.ID, UserName: "Alice", Text: "hello *there*", Addressed: true,
	}
	if got.Attachments != nil || got.Platform != want.Platform || got.Chat != want.Chat || got.ChatType != want.ChatType ||
		got.MessageID != want.MessageID || got.UserID != want.UserID || got.UserName != want.UserName ||
		got.Text != want.Text || got.Addressed != want.Addressed {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
}

func TestConnectedStateNamesTheBot(t *testing.T) {
	t.Parallel()
	srv := discordtest.NewServer(t)
	r := launch(t, srv)
	st := r.rec.connected(t)
	if st.Platform != "discord" || st.Detail != "@hermes" || st.Since.IsZero() {
		t.Fatalf("state = %+v, want connected as @hermes", st)
	}
	ops := srv.Ops()
	var identify map[string]any
	for _, op := range ops {
		if op.Op == 2 {
			identify = map[string]any{}
			_ = json.Unmarshal(op.Data, &identify)
		}
	}
	if identify == nil {
		t.Fatalf("no IDENTIFY among %+v", ops)
	}
	if got := int(identify["intents"].(float64)); got != int(DefaultIntents) {
		t.Fatalf("intents = %d, want %d (guilds, guild and direct messages, message content)", got, DefaultIntents)
	}
}

func TestGuildMessagesAreAddressedOnlyWhenTheyMentionOrReplyToTheBot(t *testing.T) {
	t.Parallel()
	srv := discordtest.NewServer(t)
	r := start(t, srv)
	const ch = "3000000000000000001"
	bot := srv.Bot()

	srv.Push(discordtest.Message{ChannelID: ch, Author: bob, Content: "lunch anyone?"})
	chatter := r.rec.message(t)
	if chatter.Addressed || chatter.ChatType != gateway.Group || chatter.Chat != (gateway.ChatRef{ChatID: ch}) || chatter.Text != "lunch anyone?" {
		t.Fatalf("plain guild message = %+v, want an unaddressed group message", chatter)
	}

	srv.PushMention(ch, alice, "summarise the thread")
	m := r.rec.message(t)
	if !m.Addressed || m.Text != "summarise the thread" || m.UserName != "Alice" {
		t.Fatalf("mention = %+v, want addressed with the mention removed", m)
	}

	srv.Push(discordtest.Message{ChannelID: ch, Author: bob, Content: "hey <@!" + bot.ID + "> what's up",
		Mentions: []discordtest.User{bot}})
	if m := r.rec.message(t); !m.Addressed || m.Text != "hey what's up" {
		t.Fatalf("legacy mention = %+v, want addressed, text %q", m, "hey what's up")
	}

	mine := must(r.a.Send(context.Background(), gateway.Outbound{Chat: gateway.ChatRef{ChatID: ch}, Text: "Here is the summary."}))
	srv.Push(discordtest.Message{ChannelID: ch, Author: alice, Content: "thanks, shorter?", ReplyTo: mine.MessageID})
	if m := r.rec.message(t); !m.Addressed || m.Text != "thanks, shorter?" {
		t.Fatalf("reply to the bot = %+v, want addressed", m)
	}

	other := srv.Push(discordtest.Message{ChannelID: ch, Author: bob, Content: "first"})
	r.rec.message(t)
	srv.Push(discordtest.Message{ChannelID: ch, Author: alice, Content: "agreed", ReplyTo: other.ID})
	if m := r.rec.message(t); m.Addressed {
		t.Fatalf("reply to someone else = %+v, want unaddressed", m)
	}
}

func TestBotsAndTheBotItselfAreIgnored(t *testing.T) {
	t.Parallel()
	srv := discordtest.NewServer(t)
	r := start(t, srv)
	const ch = "3000000000000000001"
	srv.Push(discordtest.Message{ChannelID: ch, Author: srv.Bot(), Content: "my own echo"})
	srv.Push(discordtest.Message{ChannelID: ch, Author: discordtest.User{ID: "4000000000000000001", Username: "otherbot", Bot: true}, Content: "beep"})
	r.rec.noMessageBefore(t, srv, ch)
}

func TestThreadMessagesBelongToTheirChannelAndThread(t *testing.T) {
	t.Parallel()
	srv := discordtest.NewServer(t)
	const parent = "3000000000000000001"
	srv.AddChannel(discordtest.Channel{ID: parent, GuildID: discordtest.Guild, Type: discordtest.GuildText})
	r := start(t, srv)

	// A thread announced by THREAD_CREATE.
	th := srv.CreateThread(parent, "planning")
	srv.PushMention(th.ID, alice, "draft the agenda")
	m := r.rec.message(t)
	if m.Chat != (gateway.ChatRef{ChatID: parent, ThreadID: th.ID}) || !m.Addressed {
		t.Fatalf("thread message chat = %+v, want {%s %s}", m.Chat, parent, th.ID)
	}
	if n := len(srv.RequestsTo("GET", "/channels/"+th.ID)); n != 0 {
		t.Fatalf("the adapter looked up an announced thread %d times", n)
	}

	// A thread the adapter never heard of is looked up once.
	quiet := discordtest.Channel{ID: "3000000000000000099", GuildID: discordtest.Guild, ParentID: parent, Type: discordtest.PublicThread}
	srv.AddChannel(quiet)
	for range 2 {
		srv.Push(discordtest.Message{ChannelID: quiet.ID, Author: bob, Content: "in the quiet thread"})
		if m := r.rec.message(t); m.Chat != (gateway.ChatRef{ChatID: parent, ThreadID: quiet.ID}) {
			t.Fatalf("unannounced thread message chat = %+v", m.Chat)
		}
	}
	if n := len(srv.RequestsTo("GET", "/channels/"+quiet.ID)); n != 1 {
		t.Fatalf("the adapter looked up the unannounced thread %d times, want once", n)
	}

	// A plain channel is not a thread.
	srv.Push(discordtest.Message{ChannelID: parent, Author: bob, Content: "in the channel"})
	if m := r.rec.message(t); m.Chat != (gateway.ChatRef{ChatID: parent}) {
		t.Fatalf("channel message chat = %+v", m.Chat)
	}
}

func TestAttachmentsDownloadTheirContent(t *testing.T) {
	t.Parallel()
	srv := discordtest.NewServer(t)
	r := start(t, srv)
	png := []byte("\x89PNG\r\n\x1a\nfake image")
	srv.Push(discordtest.Message{ChannelID: srv.DMChannel(alice), Author: alice, Content: "look", Attachments: []discordtest.Attachment{
		{Filename: "cat.png", ContentType: "image/png", Data: png},
		{Filename: "notes.txt", ContentType: "text/plain; charset=utf-8", Data: []byte("notes")},
		{Filename: "voice-message.ogg", ContentType: "audio/ogg", Data: []byte("OggS"), Voice: true},
	}})
	m := r.rec.message(t)
	if len(m.Attachments) != 3 {
		t.Fatalf("attachments = %+v", m.Attachments)
	}
	for i, want := range []struct {
		kind, name string
		data       []byte
	}{{"image", "cat.png", png}, {"file", "notes.txt", []byte("notes")}, {"voice", "voice-message.ogg", []byte("OggS")}} {
		at := m.Attachments[i]
		if at.Kind != want.kind || at.Name != want.name || at.Size != int64(len(want.data)) {
			t.Errorf("attachment %d = %+v, want kind %s name %s", i, at, want.kind, want.name)
		}
		rc, err := at.Open(context.Background())
		if err != nil {
			t.Fatalf("Open %s: %v", want.name, err)
		}
		got, _ := io.ReadAll(rc)
		rc.Close()
		if string(got) != string(want.data) {
			t.Errorf("%s content = %q, want %q", want.name, got, want.data)
		}
	}
}
