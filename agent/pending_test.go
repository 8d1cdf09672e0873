package agent

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/session"
	"github.com/hermes-go/hermes/tool"
)

// With a store that writes a message with what is pending before it, a
// turn stores the same as with one write each: the session, its system
// prompt, every message, every call's usage. A call whose reply is no
// message (an empty answer retried) still counts, and so does the usage
// of a turn that ends without storing a message after its last call.
func TestDeferredWritesStoreTheWholeTurn(t *testing.T) {
	st, err := session.Open(filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var _ PendingStore = st
	s := script(t)
	s.add(calls(call("c1", "echo", `{"text":"one"}`)), calls(call("c2", "echo", `{"text":"two"}`)))
	s.add(reply(&llm.Response{Message: llm.Assistant(""), FinishReason: llm.FinishStop, Usage: llm.Usage{InputTokens: 7, TotalTokens: 7}}))
	s.add(text("done"))
	a := New(Config{Client: s, Model: "m", Provider: "p", Store: st, Tools: tool.NewRegistry(echoTool()),
		Session:      SessionMeta{ID: "20261201_100000_aaaaaa", Source: "api_server", Cwd: "/w"},
		SystemPrompt: func(context.Context, string, string) (string, error) { return "You are Hermes.", nil }})
	res, err := a.Run(context.Background(), Input{Message: "go"})
	if err != nil || !res.Completed {
		t.Fatalf("%+v %v", res, err)
	}
	got, err := st.Get(context.Background(), "20261201_100000_aaaaaa")
	if err != nil {
		t.Fatal(err)
	}
	if got.Source != "api_server" || got.Model != "m" || got.Provider != "p" || got.Cwd != "/w" || got.SystemPrompt != "You are Hermes." {
		t.Fatalf("session %+v", got)
	}
	if got.APICalls != 4 || got.Usage.InputTokens != 10+10+7+10 || got.MessageCount != 6 {
		t.Fatalf("stored %d calls, usage %+v, %d messages; the turn made %d calls, %+v", got.APICalls, got.Usage, got.MessageCount, res.APICalls, res.Usage)
	}

	// The next turn's last call ends it with no message to carry the
	// usage: it is written at the end of the turn.
	s.add(reply(&llm.Response{Message: llm.Assistant("?"), FinishReason: "weird", Usage: llm.Usage{InputTokens: 3, TotalTokens: 3}}))
	res, err = a.Run(context.Background(), Input{Message: "again"})
	if err != nil || res.Completed {
		t.Fatalf("%+v %v", res, err)
	}
	got, _ = st.Get(context.Background(), "20261201_100000_aaaaaa")
	if got.APICalls != 5 || got.Usage.InputTokens != 40 || got.MessageCount != 7 {
		t.Fatalf("after the failed turn: %d calls, usage %+v, %d messages", got.APICalls, got.Usage, got.MessageCount)
	}
}
