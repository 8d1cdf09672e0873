package app_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hermes-go/hermes/agent"
	"github.com/hermes-go/hermes/app"
	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
)

// A long page is summarised by auxiliary.web_extract (its primary failing,
// its own fallback answering); the tokens are reported under web_extract,
// apart from the main model's.
func TestWebExtractSummariesUseTheirOwnChain(t *testing.T) {
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, strings.Repeat("The release ships on Friday. ", 400))
	}))
	defer page.Close()
	main := llmtest.NewServer(t)
	main.Enqueue(llmtest.Reply{ToolCalls: []llm.ToolCall{{ID: "c1", Name: "web_extract", Arguments: fmt.Sprintf(`{"urls":[%q]}`, page.URL+"/notes")}}})
	main.Handle(func(r *llmtest.Request) llmtest.Reply {
		msgs := r.Messages()
		return llmtest.Reply{Text: msgs[len(msgs)-1].Content}
	})
	primary := llmtest.NewServer(t)
	primary.Enqueue(llmtest.Error(404, `{"error":{"message":"The model 'gone' does not exist","type":"invalid_request_error","param":null,"code":"model_not_found"}}`))
	fallback := llmtest.NewServer(t)
	fallback.Enqueue(llmtest.Reply{Text: "Release: Friday."})

	cfg := newConfig(t, main.URL())
	cfg.Web.AllowPrivate = true // the test page is on 127.0.0.1
	cfg.Auxiliary = map[string]config.Auxiliary{"web_extract": {
		Provider: "custom", BaseURL: primary.URL(), Model: "gone",
		FallbackProviders: []config.FallbackProvider{{Provider: "custom", Model: "small", BaseURL: fallback.URL()}},
	}}
	rt := newRuntime(t, cfg, app.Options{})
	res, err := open(t, rt, app.ConversationOptions{}).Run(context.Background(), agent.Input{Message: "read the notes"})
	if err != nil || !res.Completed {
		t.Fatalf("%v %+v", err, res)
	}
	if !strings.Contains(res.FinalResponse, "[summarised by the web_extract model: the page has 11600 characters]") || !strings.Contains(res.FinalResponse, "Release: Friday.") {
		t.Fatalf("answer %q", res.FinalResponse)
	}
	u := rt.UsageByTask()
	if u.Auxiliary["web_extract"].Calls != 1 || u.Auxiliary["web_extract"].Usage.OutputTokens == 0 || u.Main.Calls != 2 {
		t.Fatalf("usage %+v", u)
	}
	if slices.Contains(names(main.Requests()[0].Tools()), "web_search") {
		t.Fatal("web_search offered without a backend")
	}
}

// Without web.allow_private the loopback page is refused, and the model
// reads why.
func TestWebExtractRefusesLoopbackByDefault(t *testing.T) {
	var hit atomic.Bool
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hit.Store(true) }))
	defer page.Close()
	main := llmtest.NewServer(t)
	main.Enqueue(llmtest.Reply{ToolCalls: []llm.ToolCall{{ID: "c1", Name: "web_extract", Arguments: fmt.Sprintf(`{"urls":[%q]}`, page.URL)}}})
	main.Handle(func(r *llmtest.Request) llmtest.Reply {
		msgs := r.Messages()
		return llmtest.Reply{Text: msgs[len(msgs)-1].Content}
	})
	rt := newRuntime(t, newConfig(t, main.URL()), app.Options{})
	res, err := open(t, rt, app.ConversationOptions{}).Run(context.Background(), agent.Input{Message: "read it"})
	if err != nil || !strings.Contains(res.FinalResponse, "refusing to connect to 127.0.0.1 (loopback address); set web.allow_private: true") || hit.Load() {
		t.Fatalf("%v %q hit=%v", err, res.FinalResponse, hit.Load())
	}
}

// A configured search backend makes web_search available.
func TestWebSearchIsOfferedWhenABackendIsConfigured(t *testing.T) {
	searx := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"results":[{"title":"Hermes","url":"https://h.example/","content":"An agent."}]}`)
	}))
	defer searx.Close()
	main := llmtest.NewServer(t)
	main.Enqueue(llmtest.Reply{ToolCalls: []llm.ToolCall{{ID: "c1", Name: "web_search", Arguments: `{"query":"hermes agent"}`}}})
	main.Handle(func(r *llmtest.Request) llmtest.Reply {
		msgs := r.Messages()
		return llmtest.Reply{Text: msgs[len(msgs)-1].Content}
	})
	rt := newRuntime(t, newConfig(t, main.URL()), app.Options{Getenv: func(k string) string {
		if k == "SEARXNG_URL" {
			return searx.URL
		}
		return ""
	}})
	res, err := open(t, rt, app.ConversationOptions{}).Run(context.Background(), agent.Input{Message: "search"})
	if err != nil || !strings.Contains(res.FinalResponse, "1. Hermes\n   https://h.example/\n   An agent.") {
		t.Fatalf("%v %q", err, res.FinalResponse)
	}
}
