package openai

import (
	"net/http"
	"testing"

	"github.com/hermes-go/hermes/llm"
)

func TestRequestsCarryJSONHeadersAndTheKey(t *testing.T) {
	for _, o := range []llm.Options{{}, {NoStream: true}} {
		_, f := sentChat(t, o, simpleRequest())
		h := f.lastHeader()
		if h.Get("Content-Type") != "application/json" || h.Get("Authorization") != "Bearer sk-test" || h.Get("User-Agent") != userAgent {
			t.Errorf("NoStream %v: headers %v", o.NoStream, h)
		}
	}
}

func TestAzureGetsTheKeyInApiKeyToo(t *testing.T) {
	_, f := sentChat(t, llm.Options{Provider: "azure", APIKey: "az"}, simpleRequest())
	if h := f.lastHeader(); h.Get("api-key") != "az" || h.Get("Authorization") != "Bearer az" {
		t.Errorf("headers %v", h)
	}
}

// A redirect to another origin would carry the key headers there: it is
// not followed, and the call fails with the redirect's status. A redirect
// on the same origin is followed.
func TestKeysStayOnTheConfiguredOrigin(t *testing.T) {
	elsewhere := newFakeProvider(t, serveSSE(sse(doneChunk)))
	redirect := func(to string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/moved/chat/completions" {
				serveSSE(sse(doneChunk))(w, r)
				return
			}
			http.Redirect(w, r, to, http.StatusTemporaryRedirect)
		}
	}

	away := newFakeProvider(t, redirect(elsewhere.URL+"/v1/chat/completions"))
	_, _, err := complete(t, chatClient(away, llm.Options{APIKey: "secret"}), simpleRequest())
	if pe, ok := llm.AsProviderError(err); !ok || pe.StatusCode != http.StatusTemporaryRedirect {
		t.Errorf("redirect to another origin: err %v, want the 307 as a provider error", err)
	}
	if n := len(elsewhere.paths); n != 0 {
		t.Errorf("the other origin got %d requests", n)
	}

	same := newFakeProvider(t, redirect("/moved/chat/completions"))
	if _, _, err := complete(t, chatClient(same, llm.Options{}), simpleRequest()); err != nil {
		t.Errorf("redirect on the same origin: %v", err)
	}
}

func TestAnInvalidBaseURLIsABadRequest(t *testing.T) {
	_, _, err := complete(t, NewChat(llm.Options{BaseURL: "http://[::1"}), simpleRequest())
	if pe, ok := llm.AsProviderError(err); !ok || pe.Kind != llm.ErrBadRequest || pe.Retryable() {
		t.Errorf("err %v, want a non-retryable bad request", err)
	}
}
