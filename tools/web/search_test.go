package web

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/tool"
)

// backendServer answers like each search API does, and only when the
// request is what that API expects (key in its header, query where it
// goes); anything else is a 400 naming what was wrong.
func backendServer(t *testing.T, name, key string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		if r.Method == http.MethodPost {
			b, _ := io.ReadAll(r.Body)
			if err := json.Unmarshal(b, &body); err != nil {
				http.Error(w, "body is not JSON", http.StatusBadRequest)
				return
			}
		}
		q := r.URL.Query()
		bad := func(why string) { http.Error(w, `{"error":"`+why+`"}`, http.StatusBadRequest) }
		switch name {
		case "searxng":
			if r.URL.Path != "/search" || q.Get("format") != "json" || q.Get("q") != "go agents" {
				bad("searxng query")
				return
			}
			fmt.Fprint(w, `{"results":[{"title":"Hermes","url":"https://h.example/","content":"An agent in Go."},{"title":"Other","url":"https://o.example/","content":"x"}]}`)
		case "brave":
			if r.Header.Get("X-Subscription-Token") != key || q.Get("q") != "go agents" || q.Get("count") != "1" {
				http.Error(w, `{"error":"unauthorized"}`, http.StatusUnauthorized)
				return
			}
			fmt.Fprint(w, `{"web":{"results":[{"title":"Hermes","url":"https://h.example/","description":"An <strong>agent</strong> in Go."}]}}`)
		case "tavily":
			if r.Header.Get("Authorization") != "Bearer "+key || body["query"] != "go agents" || body["max_results"] != float64(1) {
				bad("tavily request")
				return
			}
			fmt.Fprint(w, `{"results":[{"title":"Hermes","url":"https://h.example/","content":"An agent in Go."}]}`)
		case "exa":
			if r.Header.Get("X-Api-Key") != key || body["query"] != "go agents" || body["numResults"] != float64(1) {
				bad("exa request")
				return
			}
			fmt.Fprint(w, `{"results":[{"title":"Hermes","url":"https://h.example/","highlights":["An agent in Go."]}]}`)
		case "firecrawl":
			if r.Header.Get("Authorization") != "Bearer "+key || body["query"] != "go agents" || body["limit"] != float64(1) {
				bad("firecrawl request")
				return
			}
			fmt.Fprint(w, `{"success":true,"data":[{"title":"Hermes","url":"https://h.example/","description":"An agent in Go."}]}`)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func search(t *testing.T, tl tool.Tool, args string) tool.Result {
	t.Helper()
	res, err := tl.Run(context.Background(), tool.Call{Name: "web_search", Args: json.RawMessage(args)})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestEveryBackendGivesTitleURLAndSnippet(t *testing.T) {
	for _, name := range Backends {
		t.Run(name, func(t *testing.T) {
			srv := backendServer(t, name, "key-123")
			b, err := NewBackend(BackendConfig{Name: name, BaseURL: srv.URL, APIKey: "key-123"})
			if err != nil {
				t.Fatal(err)
			}
			res := search(t, NewSearch(SearchOptions{Backend: b}), `{"query":"go agents","limit":1}`)
			want := "Results for \"go agents\" (" + name + "):\n\n1. Hermes\n   https://h.example/\n   An agent in Go."
			if res.IsError || res.Content != want {
				t.Fatalf("got:\n%s\nwant:\n%s", res.Content, want)
			}
		})
	}
}

func TestSearchFailuresReachTheModel(t *testing.T) {
	srv := backendServer(t, "brave", "right")
	b, _ := NewBackend(BackendConfig{Name: "brave", BaseURL: srv.URL, APIKey: "wrong"})
	res := search(t, NewSearch(SearchOptions{Backend: b}), `{"query":"go agents","limit":1}`)
	if !res.IsError || !strings.Contains(res.Content, "web_search (brave): HTTP 401 Unauthorized") {
		t.Fatal(res.Content)
	}
	if _, err := NewBackend(BackendConfig{Name: "tavily"}); err == nil || !strings.Contains(err.Error(), "API key") {
		t.Fatal(err)
	}
	if _, err := NewBackend(BackendConfig{Name: "bing", APIKey: "k"}); err == nil || !strings.Contains(err.Error(), "searxng, brave") {
		t.Fatal(err)
	}
}
