package conformance

import (
	"context"
	"encoding/base64"
	"fmt"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/anthropic"
	"github.com/hermes-go/hermes/llm/llmtest"
	"github.com/hermes-go/hermes/llm/openai"
)

// pngBytes is a 1x1 PNG.
var pngBytes, _ = base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==")

// wireShape is what each format's image part looks like on the wire.
var wireShape = map[llm.APIMode][]string{
	llm.ChatCompletions:   {`"type":"image_url"`, `"image_url":{"url":"data:image/png;base64,`, `"url":"https://example.com/cat.jpg"`},
	llm.CodexResponses:    {`"type":"input_image"`, `"image_url":"data:image/png;base64,`, `"image_url":"https://example.com/cat.jpg"`},
	llm.AnthropicMessages: {`"type":"image","source":{"type":"base64","media_type":"image/png","data":"`, `"source":{"type":"url","url":"https://example.com/cat.jpg"}`},
}

// The fake answers only when both images arrive, in the request's own
// format, with the same bytes: a transport that sent them in another
// format's shape, or dropped one, gets the provider's 400 or no answer.
func TestImagesArriveInEachWireFormatStreamedAndNot(t *testing.T) {
	inline, err := llm.ImageFromBytes(pngBytes, "dot.png")
	if err != nil {
		t.Fatal(err)
	}
	remote, err := llm.ImageFromURL("https://example.com/cat.jpg")
	if err != nil {
		t.Fatal(err)
	}
	transports := map[llm.APIMode]func(srv *llmtest.Server, noStream bool) llm.Client{
		llm.ChatCompletions: func(s *llmtest.Server, ns bool) llm.Client {
			return openai.NewChat(llm.Options{BaseURL: s.URL(), APIKey: "sk-test", Provider: "openai", NoStream: ns})
		},
		llm.CodexResponses: func(s *llmtest.Server, ns bool) llm.Client {
			return openai.NewResponses(llm.Options{BaseURL: s.URL(), APIKey: "sk-test", Provider: "openai", NoStream: ns})
		},
		llm.AnthropicMessages: func(s *llmtest.Server, ns bool) llm.Client {
			return anthropic.New(llm.Options{BaseURL: s.AnthropicURL(), APIKey: "sk-ant-test", Provider: "anthropic", NoStream: ns})
		},
	}
	for mode, newClient := range transports {
		for _, noStream := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/nostream=%v", mode, noStream), func(t *testing.T) {
				srv := llmtest.NewServer(t)
				srv.Handle(func(r *llmtest.Request) llmtest.Reply {
					msgs := r.Messages()
					last := msgs[len(msgs)-1]
					if r.Format != mode || len(last.Images) != 2 || last.Content != "what is this?" {
						return llmtest.Reply{Text: fmt.Sprintf("no images here: %+v", last)}
					}
					got, err := base64.StdEncoding.DecodeString(last.Images[0].Data)
					if err != nil || string(got) != string(pngBytes) || last.Images[0].MediaType != "image/png" || last.Images[1].URL != remote.URL {
						return llmtest.Reply{Text: "the images changed on the way"}
					}
					return llmtest.Reply{Text: "a dot and a cat"}
				})
				c := newClient(srv, noStream)
				resp, err := c.Complete(context.Background(), &llm.Request{Model: "gpt-4o", Messages: []llm.Message{
					llm.System("sys"), llm.User("hello"), llm.Assistant("hi"),
					llm.UserWithImages("what is this?", inline, remote),
				}}, nil)
				if err != nil {
					t.Fatal(err)
				}
				if resp.Message.Content != "a dot and a cat" {
					t.Fatalf("answer %q", resp.Message.Content)
				}
				body := string(srv.Requests()[0].Body)
				for _, want := range wireShape[mode] {
					if !strings.Contains(body, want) {
						t.Errorf("body lacks %s:\n%.600s", want, body)
					}
				}
			})
		}
	}
}

// Images anywhere but on a user message are refused before the call.
func TestImagesOnOtherRolesAreRefusedBeforeTheCall(t *testing.T) {
	srv := llmtest.NewServer(t)
	im, _ := llm.ImageFromBytes(pngBytes, "")
	bad := llm.Message{Role: llm.RoleAssistant, Content: "look", Images: []llm.Image{im}}
	for name, c := range map[string]llm.Client{
		"chat":      openai.NewChat(llm.Options{BaseURL: srv.URL(), APIKey: "k"}),
		"responses": openai.NewResponses(llm.Options{BaseURL: srv.URL(), APIKey: "k"}),
		"anthropic": anthropic.New(llm.Options{BaseURL: srv.AnthropicURL(), APIKey: "k"}),
	} {
		_, err := c.Complete(context.Background(), &llm.Request{Model: "m", Messages: []llm.Message{llm.User("a"), bad, llm.User("b")}}, nil)
		if err == nil || !strings.Contains(err.Error(), "only user messages carry images") {
			t.Errorf("%s: %v", name, err)
		}
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("%d requests reached the provider", n)
	}
}
