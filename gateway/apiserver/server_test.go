package apiserver_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/app"
	"github.com/hermes-go/hermes/gateway/apiserver"
)

func TestEveryRequestNeedsTheKey(t *testing.T) {
	f := newFixture(t, apiserver.Options{})
	for _, path := range []string{"/health", "/v1/models", "/v1/chat/completions"} {
		for _, auth := range []string{"", "Bearer wrong-key", "Basic " + key, "Bearer " + key + "x"} {
			req, _ := http.NewRequest(http.MethodGet, f.url+path, nil)
			if auth != "" {
				req.Header.Set("Authorization", auth)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b := make([]byte, 4096)
			n, _ := resp.Body.Read(b)
			resp.Body.Close()
			if resp.StatusCode != http.StatusUnauthorized {
				t.Fatalf("%s with %q: status %d", path, auth, resp.StatusCode)
			}
			if typ, code, msg := errorOf(t, b[:n]); typ != "invalid_request_error" || code != "invalid_api_key" || !strings.Contains(msg, "API_SERVER_KEY") {
				t.Fatalf("401 body: %s", b[:n])
			}
		}
	}
	resp, body := f.do(t, http.MethodGet, "/health", nil)
	if resp.StatusCode != 200 || decodeJSON(t, body)["status"] != "ok" {
		t.Fatalf("health: %d %s", resp.StatusCode, body)
	}
	resp, body = f.do(t, http.MethodGet, "/v1/models", nil)
	m := decodeJSON(t, body)
	data, _ := m["data"].([]any)
	if resp.StatusCode != 200 || m["object"] != "list" || len(data) != 1 || data[0].(map[string]any)["id"] != "hermes-agent" {
		t.Fatalf("models: %d %s", resp.StatusCode, body)
	}
}

func TestWithoutAKeyTheServerRefusesToStartAndSaysHowToSetOne(t *testing.T) {
	_, err := apiserver.New(apiserver.Options{Runtime: &app.Runtime{}})
	if !errors.Is(err, apiserver.ErrNoKey) || !strings.Contains(err.Error(), "API_SERVER_KEY") || !strings.Contains(err.Error(), "gateway.api_server.key") {
		t.Fatalf("err = %v", err)
	}
}

func TestAPublicAddressNeedsToBeAskedFor(t *testing.T) {
	for _, addr := range []string{"127.0.0.1:8642", "localhost:9", "[::1]:8642"} {
		if err := apiserver.CheckAddr(addr, false); err != nil {
			t.Errorf("%s: %v", addr, err)
		}
	}
	for _, addr := range []string{"0.0.0.0:8642", ":8642", "192.168.1.5:80"} {
		err := apiserver.CheckAddr(addr, false)
		if err == nil || !strings.Contains(err.Error(), "--allow-public") {
			t.Errorf("%s: err = %v", addr, err)
		}
		if err := apiserver.CheckAddr(addr, true); err != nil {
			t.Errorf("%s with allow-public: %v", addr, err)
		}
	}
	if err := apiserver.CheckAddr("8642", false); err == nil {
		t.Error("an address without a host:port form was accepted")
	}
}

func TestUnknownPathsAndMethodsGetOpenAIErrors(t *testing.T) {
	f := newFixture(t, apiserver.Options{})
	resp, body := f.do(t, http.MethodGet, "/v1/nothing", nil)
	if _, code, _ := errorOf(t, body); resp.StatusCode != 404 || code != "not_found" {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	resp, body = f.do(t, http.MethodDelete, "/v1/models", nil)
	if _, code, _ := errorOf(t, body); resp.StatusCode != 405 || code != "method_not_allowed" {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	resp, body = f.do(t, http.MethodPost, "/v1/chat/completions", map[string]any{"messages": []any{}})
	if typ, _, _ := errorOf(t, body); resp.StatusCode != 400 || typ != "invalid_request_error" {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	resp, body = f.do(t, http.MethodPost, "/v1/chat/completions", map[string]any{"messages": []any{map[string]any{"role": "assistant", "content": "hi"}}})
	if _, _, msg := errorOf(t, body); resp.StatusCode != 400 || !strings.Contains(msg, "last message must be a user message") {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
}

func TestCORSIsOffUnlessOriginsAreListed(t *testing.T) {
	preflight := func(f *fixture, origin string) *http.Response {
		req, _ := http.NewRequest(http.MethodOptions, f.url+"/v1/chat/completions", nil)
		req.Header.Set("Origin", origin)
		req.Header.Set("Access-Control-Request-Method", "POST")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	off := newFixture(t, apiserver.Options{})
	if r := preflight(off, "https://chat.example.com"); r.Header.Get("Access-Control-Allow-Origin") != "" || r.StatusCode != 401 {
		t.Fatalf("CORS off: status %d, allow-origin %q", r.StatusCode, r.Header.Get("Access-Control-Allow-Origin"))
	}
	on := newFixture(t, apiserver.Options{CORSOrigins: []string{"https://chat.example.com"}})
	if r := preflight(on, "https://chat.example.com"); r.StatusCode != 204 || r.Header.Get("Access-Control-Allow-Origin") != "https://chat.example.com" ||
		!strings.Contains(r.Header.Get("Access-Control-Allow-Headers"), "Authorization") {
		t.Fatalf("listed origin: status %d headers %v", r.StatusCode, r.Header)
	}
	if r := preflight(on, "https://evil.example.com"); r.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Fatalf("unlisted origin allowed: %v", r.Header)
	}
	// The real request after a preflight still needs the key.
	req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, on.url+"/v1/models", nil)
	req.Header.Set("Origin", "https://chat.example.com")
	resp, _ := http.DefaultClient.Do(req)
	resp.Body.Close()
	if resp.StatusCode != 401 {
		t.Fatalf("cross-origin request without a key: %d", resp.StatusCode)
	}
}
