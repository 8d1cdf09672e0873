package app_test

import (
	"context"
	"encoding/base64"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/agent"
	"github.com/hermes-go/hermes/app"
	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
)

var dotPNG, _ = base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==")

// The auxiliary.vision chain has its own providers and fallback: its
// primary refuses the image, its fallback (another wire format) answers
// only when the image arrives in that format, and the main model reads
// the answer. The tokens each spent are reported apart.
func TestVisionAnalyzeFallsBackWithinItsOwnChain(t *testing.T) {
	main := llmtest.NewServer(t)
	main.Enqueue(
		llmtest.Reply{ToolCalls: []llm.ToolCall{{ID: "c1", Name: "vision_analyze", Arguments: `{"image":"shot.png","question":"What colour is it?"}`}}},
	)
	main.Handle(func(r *llmtest.Request) llmtest.Reply {
		msgs := r.Messages()
		return llmtest.Reply{Text: "The tool said: " + msgs[len(msgs)-1].Content}
	})
	primary := llmtest.NewServer(t)
	primary.Enqueue(llmtest.Error(400, `{"error":{"message":"this model does not support image input","type":"invalid_request_error","param":null,"code":null}}`))
	fallback := llmtest.NewServer(t)
	fallback.Handle(func(r *llmtest.Request) llmtest.Reply {
		msgs := r.Messages()
		last := msgs[len(msgs)-1]
		if r.Format != llm.AnthropicMessages || len(last.Images) != 1 || last.Images[0].Data != base64.StdEncoding.EncodeToString(dotPNG) {
			return llmtest.Reply{Text: "I was sent no image"}
		}
		return llmtest.Reply{Text: "It is a single white pixel."}
	})

	cfg := newConfig(t, main.URL())
	cfg.Auxiliary = map[string]config.Auxiliary{"vision": {
		Provider: "custom", BaseURL: primary.URL(), Model: "vision-primary",
		FallbackProviders: []config.FallbackProvider{{Provider: "custom", Model: "vision-fallback", BaseURL: fallback.AnthropicURL(), APIMode: "anthropic_messages"}},
	}}
	work := t.TempDir()
	if err := os.WriteFile(filepath.Join(work, "shot.png"), dotPNG, 0o644); err != nil {
		t.Fatal(err)
	}
	rt := newRuntime(t, cfg, app.Options{Workdir: work})
	res, err := open(t, rt, app.ConversationOptions{}).Run(context.Background(), agent.Input{Message: "look at shot.png"})
	if err != nil || !res.Completed {
		t.Fatalf("%v %+v", err, res)
	}
	if res.FinalResponse != "The tool said: It is a single white pixel." {
		t.Fatalf("answer %q", res.FinalResponse)
	}
	if !slices.Contains(names(main.Requests()[0].Tools()), "vision_analyze") {
		t.Fatal("vision_analyze not offered")
	}
	if len(primary.Requests()) != 1 || primary.Requests()[0].Model != "vision-primary" || len(fallback.Requests()) != 1 {
		t.Fatalf("primary %d, fallback %d requests", len(primary.Requests()), len(fallback.Requests()))
	}
	u := rt.UsageByTask()
	if u.Main.Calls != 2 || u.Auxiliary["vision"].Calls != 1 || u.Auxiliary["vision"].Usage.InputTokens == 0 || u.Main.Usage.InputTokens == 0 {
		t.Fatalf("usage %+v", u)
	}
	if s := u.String(); !strings.Contains(s, "main model") || !strings.Contains(s, "  vision") {
		t.Fatalf("usage text:\n%s", s)
	}
}

// vision_analyze is offered only when a vision model is configured.
func TestVisionAnalyzeIsOfferedOnlyWithAVisionModel(t *testing.T) {
	for _, c := range []struct {
		name   string
		setup  func(cfg *config.Config)
		offers bool
	}{
		{"text model", func(cfg *config.Config) {}, false},
		{"model.vision", func(cfg *config.Config) { v := true; cfg.Model.Vision = &v }, true},
		{"known vision family", func(cfg *config.Config) { cfg.Model.Name = "gpt-4o" }, true},
		{"auxiliary.vision model", func(cfg *config.Config) {
			cfg.Auxiliary = map[string]config.Auxiliary{"vision": {Model: "llava"}}
		}, true},
		{"vision toolset off", func(cfg *config.Config) { cfg.Model.Name = "gpt-4o"; cfg.Toolsets = []string{"terminal"} }, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := llmtest.NewServer(t)
			srv.Enqueue(llmtest.Reply{Text: "ok"})
			cfg := newConfig(t, srv.URL())
			c.setup(cfg)
			rt := newRuntime(t, cfg, app.Options{})
			if _, err := open(t, rt, app.ConversationOptions{}).Run(context.Background(), agent.Input{Message: "hi"}); err != nil {
				t.Fatal(err)
			}
			if got := slices.Contains(names(srv.Requests()[0].Tools()), "vision_analyze"); got != c.offers {
				t.Fatalf("offered %v, want %v", got, c.offers)
			}
		})
	}
}

// /image: AttachImage queues an image for the next prompt, and refuses at
// once when the model cannot see it.
func TestAttachImageGoesWithTheNextPrompt(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Reply{Text: "a pixel"})
	cfg := newConfig(t, srv.URL())
	v := true
	cfg.Model.Vision = &v
	work := t.TempDir()
	os.WriteFile(filepath.Join(work, "shot.png"), dotPNG, 0o644)
	rt := newRuntime(t, cfg, app.Options{Workdir: work})
	c := open(t, rt, app.ConversationOptions{})
	im, err := c.AttachImage("shot.png")
	if err != nil || im.Size != len(dotPNG) {
		t.Fatalf("%v %+v", err, im)
	}
	if _, err := c.Run(context.Background(), agent.Input{Message: "what is it?"}); err != nil {
		t.Fatal(err)
	}
	msgs := srv.Requests()[0].Messages()
	if last := msgs[len(msgs)-1]; len(last.Images) != 1 || last.Images[0].MediaType != "image/png" {
		t.Fatalf("sent %+v", last)
	}
	stored, _ := rt.Store().Messages(context.Background(), c.SessionID())
	if len(stored[0].Images) != 1 {
		t.Fatal("the image was not stored with the session")
	}

	plain := open(t, newRuntime(t, newConfig(t, srv.URL()), app.Options{Workdir: work}), app.ConversationOptions{})
	if _, err := plain.AttachImage("shot.png"); err == nil || !strings.Contains(err.Error(), "primary-model cannot see images") {
		t.Fatalf("err %v", err)
	}
}
