package discord

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/hermes-go/hermes/gateway"
	"github.com/hermes-go/hermes/gateway/discord/discordtest"
)

// menuCommands are the commands the slash command tests register.
var menuCommands = []gateway.Command{
	{Name: "new", Description: "Start a new conversation"},
	{Name: "title", Description: "Name the conversation"},
	{Name: "status", Description: "What the bot is doing"},
}

// withMenu starts an adapter against srv whose command menu is
// registered.
func withMenu(t *testing.T, srv *discordtest.Server) *running {
	t.Helper()
	r := start(t, srv)
	if err := r.a.SetCommands(context.Background(), menuCommands); err != nil {
		t.Fatal(err)
	}
	return r
}

// interaction returns the fake's record of an interaction.
func interaction(t *testing.T, srv *discordtest.Server, id string) discordtest.Interaction {
	t.Helper()
	for _, in := range srv.Interactions() {
		if in.ID == id {
			return in
		}
	}
	t.Fatalf("no interaction %s", id)
	return discordtest.Interaction{}
}

func TestSlashCommandReachesTheHandlerAndIsEchoedAtOnce(t *testing.T) {
	t.Parallel()
	srv := discordtest.NewServer(t)
	r := withMenu(t, srv)
	const ch = "3000000000000000001"

	used := srv.SlashCommand(ch, alice, "title", "my plans")
	got := r.rec.message(t)
	want := gateway.Inbound{
		Platform: "discord", Chat: gateway.ChatRef{ChatID: ch}, ChatType: gateway.Group,
		MessageID: "interaction:" + used.ID, UserID: alice.ID, UserName: "Alice", Text: "/title my plans", Addressed: true,
	}
	if got.Platform != want.Platform || got.Chat != want.Chat || got.ChatType != want.ChatType || got.MessageID != want.MessageID ||
		got.UserID != want.UserID || got.UserName != want.UserName || got.Text != want.Text || got.Addressed != want.Addressed ||
		got.Attachments != nil {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}

	// The handler sends nothing here: the answer comes from the adapter,
	// without waiting for the gateway's reply.
	echo := waitAnswered(t, srv, used.ID)
	if !slices.Equal(echo.Callbacks, []int{4}) || len(echo.Replies) != 1 || echo.Replies[0].Ephemeral() ||
		echo.Replies[0].Content != "/title my plans" {
		t.Fatalf("answer = %+v, want one visible message echoing the command", echo)
	}
	if msgs := srv.Messages(ch); len(msgs) != 1 || msgs[0].Content != "/title my plans" || msgs[0].Author.ID != srv.Bot().ID {
		t.Fatalf("channel = %+v, want the echo", msgs)
	}
}

// waitAnswered waits until the bot answered an interaction.
func waitAnswered(t *testing.T, srv *discordtest.Server, id string) discordtest.Interaction {
	t.Helper()
	select {
	case <-srv.Answered(id):
	case <-time.After(wait):
		t.Fatalf("interaction %s was never answered", id)
	}
	return interaction(t, srv, id)
}

func TestSlashCommandInADirectMessage(t *testing.T) {
	t.Parallel()
	srv := discordtest.NewServer(t)
	r := withMenu(t, srv)
	dm := srv.DMChannel(bob)

	used := srv.SlashCommand(dm, bob, "new", "")
	got := r.rec.message(t)
	if got.Text != "/new" || got.ChatType != gateway.DM || got.Chat != (gateway.ChatRef{ChatID: dm}) ||
		got.UserID != bob.ID || got.UserName != "bob" || !got.Addressed || got.MessageID != "interaction:"+used.ID {
		t.Fatalf("got %+v, want /new from bob in his DM", got)
	}
	if echo := waitAnswered(t, srv, used.ID); echo.Replies[0].Content != "/new" || echo.Replies[0].Ephemeral() {
		t.Fatalf("answer = %+v, want the visible echo /new", echo)
	}
}

func TestSlashCommandInAThreadBelongsToTheThread(t *testing.T) {
	t.Parallel()
	srv := discordtest.NewServer(t)
	const parent = "3000000000000000001"
	srv.AddChannel(discordtest.Channel{ID: parent, GuildID: discordtest.Guild, Type: discordtest.GuildText, Name: "general"})
	r := withMenu(t, srv)
	th := srv.CreateThread(parent, "plans")

	srv.SlashCommand(th.ID, alice, "status", "")
	got := r.rec.message(t)
	if got.Chat != (gateway.ChatRef{ChatID: parent, ThreadID: th.ID}) || got.ChatType != gateway.Group || got.Text != "/status" {
		t.Fatalf("got %+v, want /status in thread %s of %s", got, th.ID, parent)
	}
}

func TestSlashCommandTheGatewayRefusesIsAnsweredOnlyToItsUser(t *testing.T) {
	t.Parallel()
	srv := discordtest.NewServer(t)
	r := withMenu(t, srv)
	const ch = "3000000000000000001"
	r.rec.refuseText("/new")

	used := srv.SlashCommand(ch, alice, "new", "")
	in := waitAnswered(t, srv, used.ID)
	if !slices.Equal(in.Callbacks, []int{4}) || len(in.Replies) != 1 || !in.Replies[0].Ephemeral() ||
		in.Replies[0].Content != "could not take this command: the store is full" {
		t.Fatalf("answer = %+v, want one ephemeral refusal", in)
	}
	if msgs := srv.Messages(ch); len(msgs) != 0 {
		t.Fatalf("channel = %+v, want nothing anyone else sees", msgs)
	}
}

// A quick command's answer must not show above the command: a message
// to the channel waits until the echo is posted.
func TestSendWaitsForTheEchoOfACommand(t *testing.T) {
	t.Parallel()
	srv := discordtest.NewServer(t)
	a := newAdapter(t, srv)
	waiting := make(chan string, 1)
	a.echoes.waiting = func(ch string) { waiting <- ch }
	r := run(t, a)
	r.rec.connected(t)
	if err := a.SetCommands(context.Background(), menuCommands); err != nil {
		t.Fatal(err)
	}
	const ch = "3000000000000000001"
	release := srv.HoldInteractionResponses()
	defer release()

	used := srv.SlashCommand(ch, alice, "status", "")
	in := r.rec.message(t)
	sent := make(chan error, 1)
	go func() {
		_, err := a.Send(context.Background(), gateway.Outbound{Chat: in.Chat, Text: "Idle: no turn is running."})
		sent <- err
	}()
	select {
	case got := <-waiting:
		if got != ch {
			t.Fatalf("Send waited for an echo in %s, want %s", got, ch)
		}
	case err := <-sent:
		t.Fatalf("Send went out while the echo was held (err %v)", err)
	case <-time.After(wait):
		t.Fatal("Send neither waited nor went out")
	}
	release()
	if err := <-sent; err != nil {
		t.Fatal(err)
	}
	msgs := srv.Messages(ch)
	if len(msgs) != 2 || msgs[0].Content != "/status" || msgs[1].Content != "Idle: no turn is running." {
		t.Fatalf("channel = %+v, want the echo, then the answer", msgs)
	}
	if in := interaction(t, srv, used.ID); !slices.Equal(in.Callbacks, []int{4}) {
		t.Fatalf("callbacks = %v", in.Callbacks)
	}
}

func TestEchoShowsTheCommandAsTypedAndNotifiesNobody(t *testing.T) {
	t.Parallel()
	srv := discordtest.NewServer(t)
	r := withMenu(t, srv)
	const ch = "3000000000000000001"

	used := srv.SlashCommand(ch, alice, "title", "  *plans* for @everyone  ")
	if got := r.rec.message(t); got.Text != "/title *plans* for @everyone" {
		t.Fatalf("text = %q", got.Text)
	}
	echo := waitAnswered(t, srv, used.ID).Replies[0]
	if echo.Content != `/title \*plans\* for @everyone` {
		t.Fatalf("echo = %q, want the markdown escaped so it shows as typed", echo.Content)
	}
	var allowed struct {
		Parse []string `json:"parse"`
	}
	if err := json.Unmarshal(echo.AllowedMentions, &allowed); err != nil || allowed.Parse == nil || len(allowed.Parse) != 0 {
		t.Fatalf("allowed_mentions = %s, want parse empty (@everyone notifies nobody)", echo.AllowedMentions)
	}
}
