package web

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// The backends' public endpoints; BaseURL overrides them (a self-hosted
// instance, a proxy, a test server).
const (
	BraveURL     = "https://api.search.brave.com/res/v1/web/search"
	TavilyURL    = "https://api.tavily.com/search"
	ExaURL       = "https://api.exa.ai/search"
	FirecrawlURL = "https://api.firecrawl.dev/v1/search"
)

// Backends lists the backend names NewBackend knows.
var Backends = []string{"searxng", "brave", "tavily", "exa", "firecrawl"}

// BackendConfig is what a backend needs.
type BackendConfig struct {
	Name    string // one of Backends
	BaseURL string // searxng: the instance's URL (required); others: override
	APIKey  string // the keyed APIs
	Client  *http.Client
}

// NewBackend returns the named backend.
func NewBackend(c BackendConfig) (Searcher, error) {
	if c.Client == nil {
		c.Client = http.DefaultClient
	}
	h := httpJSON{client: c.Client}
	switch c.Name {
	case "searxng":
		if c.BaseURL == "" {
			return nil, errors.New("searxng needs the instance's URL (web.search.searxng_url or SEARXNG_URL)")
		}
		return &searxng{h, strings.TrimRight(c.BaseURL, "/")}, nil
	case "brave", "tavily", "exa", "firecrawl":
		if c.APIKey == "" {
			return nil, fmt.Errorf("%s needs an API key", c.Name)
		}
	default:
		return nil, fmt.Errorf("unknown search backend %q (known: %s)", c.Name, strings.Join(Backends, ", "))
	}
	k := keyed{h, c.APIKey}
	switch c.Name {
	case "brave":
		return &brave{k, cmp.Or(c.BaseURL, BraveURL)}, nil
	case "tavily":
		return &tavily{k, cmp.Or(c.BaseURL, TavilyURL)}, nil
	case "exa":
		return &exa{k, cmp.Or(c.BaseURL, ExaURL)}, nil
	}
	return &firecrawl{k, cmp.Or(c.BaseURL, FirecrawlURL)}, nil
}

// httpJSON makes a request and decodes a JSON answer.
type httpJSON struct{ client *http.Client }

func (h httpJSON) do(ctx context.Context, method, u string, headers map[string]string, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := h.client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // the URL may carry the key
		}
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return fmt.Errorf("reading the answer: %w", err)
	}
	if resp.StatusCode >= 400 {
		return fmt.Errorf("HTTP %s: %s", resp.Status, cut(oneLine(string(b)), 300))
	}
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("the answer is not the JSON expected: %w", err)
	}
	return nil
}

type keyed struct {
	httpJSON
	key string
}

type searxng struct {
	httpJSON
	base string
}

func (s *searxng) Name() string { return "searxng" }

func (s *searxng) Search(ctx context.Context, q string, n int) ([]SearchResult, error) {
	var out struct {
		Results []struct {
			Title   string `json:"title"`
			URL     string `json:"url"`
			Content string `json:"content"`
		} `json:"results"`
	}
	u := s.base + "/search?" + url.Values{"q": {q}, "format": {"json"}}.Encode()
	if err := s.do(ctx, http.MethodGet, u, nil, nil, &out); err != nil {
		return nil, err
	}
	var res []SearchResult
	for _, r := range out.Results {
		res = append(res, SearchResult{r.Title, r.URL, r.Content})
	}
	return res, nil
}

type brave struct {
	keyed
	base string
}

func (b *brave) Name() string { return "brave" }

func (b *brave) Search(ctx context.Context, q string, n int) ([]SearchResult, error) {
	var out struct {
		Web struct {
			Results []struct {
				Title       string `json:"title"`
				URL         string `json:"url"`
				Description string `json:"description"`
			} `json:"results"`
		} `json:"web"`
	}
	u := b.base + "?" + url.Values{"q": {q}, "count": {strconv.Itoa(n)}}.Encode()
	if err := b.do(ctx, http.MethodGet, u, map[string]string{"X-Subscription-Token": b.key}, nil, &out); err != nil {
		return nil, err
	}
	var res []SearchResult
	for _, r := range out.Web.Results {
		res = append(res, SearchResult{r.Title, r.URL, stripTags(r.Description)})
	}
	return res, nil
}

type tavily struct {
	keyed
	base string
}

func (t *tavily) Name() string { return "tavily" }

func (t *tavily) Search(ctx context.Context, q string, n int) ([]SearchResult, error) {
	var out struct {
		Results []struct {
			Title   string `json:"title"`
			URL     string `json:"url"`
			Content string `json:"content"`
		} `json:"results"`
	}
	body := map[string]any{"query": q, "max_results": n}
	if err := t.do(ctx, http.MethodPost, t.base, map[string]string{"Authorization": "Bearer " + t.key}, body, &out); err != nil {
		return nil, err
	}
	var res []SearchResult
	for _, r := range out.Results {
		res = append(res, SearchResult{r.Title, r.URL, r.Content})
	}
	return res, nil
}

type exa struct {
	keyed
	base string
}

func (e *exa) Name() string { return "exa" }

func (e *exa) Search(ctx context.Context, q string, n int) ([]SearchResult, error) {
	var out struct {
		Results []struct {
			Title      string   `json:"title"`
			URL        string   `json:"url"`
			Text       string   `json:"text"`
			Highlights []string `json:"highlights"`
		} `json:"results"`
	}
	body := map[string]any{"query": q, "numResults": n, "contents": map[string]any{"highlights": true}}
	if err := e.do(ctx, http.MethodPost, e.base, map[string]string{"x-api-key": e.key}, body, &out); err != nil {
		return nil, err
	}
	var res []SearchResult
	for _, r := range out.Results {
		snippet := strings.Join(r.Highlights, " … ")
		res = append(res, SearchResult{r.Title, r.URL, cmp.Or(snippet, r.Text)})
	}
	return res, nil
}

type firecrawl struct {
	keyed
	base string
}

func (f *firecrawl) Name() string { return "firecrawl" }

func (f *firecrawl) Search(ctx context.Context, q string, n int) ([]SearchResult, error) {
	var out struct {
		Success bool   `json:"success"`
		Error   string `json:"error"`
		Data    []struct {
			Title       string `json:"title"`
			URL         string `json:"url"`
			Description string `json:"description"`
		} `json:"data"`
	}
	body := map[string]any{"query": q, "limit": n}
	if err := f.do(ctx, http.MethodPost, f.base, map[string]string{"Authorization": "Bearer " + f.key}, body, &out); err != nil {
		return nil, err
	}
	if !out.Success && out.Error != "" {
		return nil, errors.New(out.Error)
	}
	var res []SearchResult
	for _, r := range out.Data {
		res = append(res, SearchResult{r.Title, r.URL, r.Description})
	}
	return res, nil
}

// stripTags removes the <strong> marks Brave puts around matches.
func stripTags(s string) string {
	var b strings.Builder
	in := false
	for _, r := range s {
		switch {
		case r == '<':
			in = true
		case r == '>' && in:
			in = false
		case !in:
			b.WriteRune(r)
		}
	}
	return b.String()
}
