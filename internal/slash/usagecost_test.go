package slash

import (
	"context"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/app"
	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
)

func chatWithModel(t *testing.T, srv *llmtest.Server, model string) (*Registry, *fakeHost) {
	t.Helper()
	cfg := config.Default()
	cfg.Home = t.TempDir()
	cfg.Provider, cfg.BaseURL, cfg.APIKey, cfg.Model.Name = "custom", srv.URL(), "sk-test", model
	rt, err := app.New(context.Background(), cfg, app.Options{Source: "cli", Workdir: t.TempDir(), Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	c, err := rt.Open(context.Background(), app.ConversationOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return Builtin(), &fakeHost{rt: rt, conv: c}
}

func TestUsageShowsCostWithCacheApartOrUnknown(t *testing.T) {
	usage := &llm.Usage{InputTokens: 1_000_000, CacheReadTokens: 400_000, CacheWriteTokens: 100_000, OutputTokens: 100_000}
	cases := []struct{ model, want string }{
		// gpt-4o-mini: 500k plain input at $0.15/M, 400k cache reads at
		// $0.075/M, 100k cache writes at $0.15/M, 100k output at $0.60/M.
		{"gpt-4o-mini", "cost        $0.1800 (input $0.0750, cache read $0.0300, cache write $0.0150, output $0.0600)"},
		{"first-model", `cost        unknown (no price for "first-model")`},
	}
	for _, c := range cases {
		srv := llmtest.NewServer(t)
		srv.Enqueue(llmtest.Reply{Text: "hello", Usage: usage})
		r, h := chatWithModel(t, srv, c.model)
		if _, err := h.Conversation().Chat(context.Background(), "hi"); err != nil {
			t.Fatal(err)
		}
		if err := run(t, r, h, "/usage"); err != nil || !strings.Contains(h.out(), c.want) {
			t.Fatalf("%s: /usage: %v\n%s\nwant %q", c.model, err, h.out(), c.want)
		}
	}
}
