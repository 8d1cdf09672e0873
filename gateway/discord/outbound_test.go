package discord

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/hermes-go/hermes/gateway"
	"github.com/hermes-go/hermes/gateway/discord/discordtest"
)

func TestSendEditUploadAndTyping(t *testing.T) {
	t.Parallel()
	srv := discordtest.NewServer(t)
	r := start(t, srv)
	ctx := context.Background()
	question := srv.PushMention("3000000000000000001", alice, "what is 2+2?")
	in := r.rec.message(t)

	if err := r.a.Typing(ctx, in.Chat); err != nil {
		t.Fatal(err)
	}
	if n := srv.Typing(in.Chat.ChatID); n != 1 {
		t.Fatalf("typing indicators = %d, want 1", n)
	}

	sent, err := r.a.Send(ctx, gateway.Outbound{Chat: in.Chat, Text: "Thinking…", ReplyTo: in.MessageID})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.a.Edit(ctx, in.Chat, sent.MessageID, gateway.Outbound{Chat: in.Chat, Text: "**4**"}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "answer.csv")
	if err := os.WriteFile(path, []byte("a,b\n2,2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	up, err := r.a.Upload(ctx, in.Chat, gateway.File{Path: path, Caption: "the working"})
	if err != nil {
		t.Fatal(err)
	}

	msgs := srv.Messages(in.Chat.ChatID)
	if len(msgs) != 3 || msgs[0].ID != question.ID {
		t.Fatalf("channel = %+v, want the question, the answer and the upload", msgs)
	}
	answer, file := msgs[1], msgs[2]
	if answer.ID != sent.MessageID || answer.Content != "**4**" || answer.Edits != 1 || answer.ReplyTo != question.ID ||
		answer.Author.ID != srv.Bot().ID {
		t.Fatalf("answer = %+v, want the edited reply to the question", answer)
	}
	if file.ID != up.MessageID || file.Content != "the working" || len(file.Attachments) != 1 ||
		file.Attachments[0].Filename != "answer.csv" || string(file.Attachments[0].Data) != "a,b\n2,2\n" ||
		file.Attachments[0].ContentType != "text/csv; charset=utf-8" {
		t.Fatalf("upload = %+v", file)
	}
}

func TestMessagesInAThreadGoToTheThread(t *testing.T) {
	t.Parallel()
	srv := discordtest.NewServer(t)
	const parent = "3000000000000000001"
	srv.AddChannel(discordtest.Channel{ID: parent, GuildID: discordtest.Guild, Type: discordtest.GuildText})
	r := start(t, srv)
	th := srv.CreateThread(parent, "planning")
	srv.PushMention(th.ID, alice, "hi")
	in := r.rec.message(t)
	ctx := context.Background()

	sent := must(r.a.Send(ctx, gateway.Outbound{Chat: in.Chat, Text: "hello in the thread"}))
	if err := r.a.Edit(ctx, in.Chat, sent.MessageID, gateway.Outbound{Text: "hello again"}); err != nil {
		t.Fatal(err)
	}
	if err := r.a.Typing(ctx, in.Chat); err != nil {
		t.Fatal(err)
	}
	msgs := srv.Messages(th.ID)
	if len(msgs) != 2 || msgs[1].Content != "hello again" || srv.Typing(th.ID) != 1 {
		t.Fatalf("thread = %+v, typing %d", msgs, srv.Typing(th.ID))
	}
	if len(srv.Messages(parent)) != 0 || srv.Typing(parent) != 0 {
		t.Fatalf("the parent channel got %+v", srv.Messages(parent))
	}
}

func TestMentionsInTheBotsTextNotifyNobody(t *testing.T) {
	t.Parallel()
	srv := discordtest.NewServer(t)
	r := start(t, srv)
	ch := srv.DMChannel(alice)
	ctx := context.Background()
	sent := must(r.a.Send(ctx, gateway.Outbound{Chat: gateway.ChatRef{ChatID: ch}, Text: "@everyone <@&123> <@456> look"}))
	if err := r.a.Edit(ctx, gateway.ChatRef{ChatID: ch}, sent.MessageID, gateway.Outbound{Text: "@here"}); err != nil {
		t.Fatal(err)
	}
	for _, req := range append(srv.RequestsTo("POST", "/channels/"+ch+"/messages"), srv.RequestsTo("PATCH", "/channels/"+ch+"/messages/"+sent.MessageID)...) {
		var am struct {
			Parse []string `json:"parse"`
			Users []string `json:"users"`
			Roles []string `json:"roles"`
		}
		raw, _ := json.Marshal(req.JSON["allowed_mentions"])
		if err := json.Unmarshal(raw, &am); err != nil || am.Parse == nil || len(am.Parse) != 0 || len(am.Users)+len(am.Roles) != 0 {
			t.Fatalf("%s %s allowed_mentions = %s, want no mention parsed", req.Method, req.Path, raw)
		}
	}
}

func TestPlainTextShowsAsWritten(t *testing.T) {
	t.Parallel()
	srv := discordtest.NewServer(t)
	r := start(t, srv)
	ch := srv.DMChannel(alice)
	in := "# not a title\n*not bold* snake_case `x` ~~y~~ | a\\b\n> not a quote\nsee https://example.com/a_b*c"
	if _, err := r.a.Send(context.Background(), gateway.Outbound{Chat: gateway.ChatRef{ChatID: ch}, Text: in, Plain: true}); err != nil {
		t.Fatal(err)
	}
	want := "\\# not a title\n\\*not bold\\* snake\\_case \\`x\\` \\~\\~y\\~\\~ \\| a\\\\b\n\\> not a quote\nsee https://example.com/a_b*c"
	if got := srv.Messages(ch)[0].Content; got != want {
		t.Fatalf("plain text sent as\n%q\nwant\n%q", got, want)
	}
}

func TestEscapeMarkdown(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"":                         "",
		"plain words":              "plain words",
		"- item\n  - sub":          "\\- item\n  \\- sub",
		"a - b":                    "a - b",
		"2 * 3 = 6":                "2 \\* 3 = 6",
		"http://x.io/_a_ and _b_":  "http://x.io/_a_ and \\_b\\_",
		"(https://x.io/__init__)":  "(https://x.io/__init__)",
		"ABCD-EFGH":                "ABCD-EFGH",
		">>> quote":                "\\>>> quote",
		"   # indented heading":    "   \\# indented heading",
		"||spoiler||":              "\\|\\|spoiler\\|\\|",
		"line\r\n# after crlf":     "line\r\n\\# after crlf",
		"tab\t-after tab is inner": "tab\t-after tab is inner",
	} {
		if got := escapeMarkdown(in); got != want {
			t.Errorf("escapeMarkdown(%q) = %q, want %q", in, got, want)
		}
	}
}
