package app_test

import (
	"context"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/agent"
	"github.com/hermes-go/hermes/app"
	"github.com/hermes-go/hermes/llm/llmtest"
	"github.com/hermes-go/hermes/session"
)

// While a conversation runs, no conversation of another runtime (as of
// another process) may resume its session, nor the child session a
// compression moved it to; once its runtime is closed, they can.
func TestASessionIsWrittenByOneRuntimeAtATime(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue(
		llmtest.Reply{Text: strings.Repeat("lorem ipsum ", 2000)}, // ~6,000 tokens
		llmtest.Reply{Text: "## Summary\nThe user asked for filler text."},
		llmtest.Reply{Text: "short answer"},
	)
	cfg := newConfig(t, srv.URL())
	cfg.Model.ContextLength = 8000
	cfg.Compression.ProtectFirstN, cfg.Compression.ProtectLastN = 1, 1
	ctx := context.Background()
	// start opens a conversation on a runtime of its own.
	start := func(resume string) (*app.Runtime, *app.Conversation, error) {
		rt, err := app.New(ctx, cfg, app.Options{Workdir: t.TempDir(), Getenv: func(string) string { return "" }})
		if err != nil {
			return nil, nil, err
		}
		c, err := rt.Open(ctx, app.ConversationOptions{Resume: resume})
		if err != nil {
			rt.Close()
			return nil, nil, err
		}
		return rt, c, nil
	}
	refused := func(ref, held string) {
		t.Helper()
		rt, _, err := start(ref)
		if err == nil {
			rt.Close()
			t.Fatalf("resume %q while another runtime writes %s: accepted", ref, held)
		}
		var ce *app.ConfigError
		if !errors.Is(err, session.ErrBusy) || !errors.As(err, &ce) {
			t.Fatalf("resume %q: err = %v, want a ConfigError for session.ErrBusy", ref, err)
		}
		if msg := err.Error(); !strings.Contains(msg, held) || !strings.Contains(msg, "process "+strconv.Itoa(os.Getpid())) {
			t.Fatalf("the refusal does not name the session and its holder: %s", msg)
		}
	}

	rt, c, err := start("")
	if err != nil {
		t.Fatal(err)
	}
	first, err := c.Run(ctx, agent.Input{Message: "write a lot"})
	if err != nil || !first.Completed {
		t.Fatalf("first turn %+v %v", first, err)
	}
	refused(first.SessionID, first.SessionID)
	refused("latest", first.SessionID)

	second, err := c.Run(ctx, agent.Input{Message: "now be brief"})
	if err != nil || !second.Completed || second.SessionID == first.SessionID {
		t.Fatalf("second turn %+v %v", second, err)
	}
	refused(second.SessionID, second.SessionID)
	refused("latest", second.SessionID)
	refused(first.SessionID, first.SessionID)

	if err := rt.Close(); err != nil {
		t.Fatal(err)
	}
	again, resumed, err := start("latest")
	if err != nil {
		t.Fatalf("resume after Close: %v", err)
	}
	defer again.Close()
	if resumed.SessionID() != second.SessionID {
		t.Fatalf("resumed %s, want the child %s", resumed.SessionID(), second.SessionID)
	}
}
