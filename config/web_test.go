package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWebKeysAreReadAndChecked(t *testing.T) {
	home := t.TempDir()
	os.WriteFile(filepath.Join(home, "config.yaml"), []byte(`model:
  default: my-vl
  vision: true
web:
  allow_private: true
  max_urls: 3
  search:
    backend: searxng
    searxng_url: http://127.0.0.1:8888
auxiliary:
  vision:
    model: gpt-4o
    fallback_providers:
      - {provider: anthropic, model: claude-sonnet-4-5}
  web_extract: {model: small}
  visoin: {model: x}
`), 0o600)
	c, err := Load(home, env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if c.Model.Vision == nil || !*c.Model.Vision || !c.Web.AllowPrivate || c.Web.MaxURLs != 3 || c.Web.Search.SearxngURL != "http://127.0.0.1:8888" ||
		c.Auxiliary["vision"].FallbackProviders[0].Model != "claude-sonnet-4-5" || c.Auxiliary["web_extract"].Model != "small" {
		t.Fatalf("%+v", c)
	}
	if !strings.Contains(strings.Join(c.Warnings, "\n"), "config.yaml:16: auxiliary.visoin: no task of that name") {
		t.Fatalf("warnings %q", c.Warnings)
	}

	os.WriteFile(filepath.Join(home, "config.yaml"), []byte("web:\n  timeout: -2\n  search:\n    backend: bing\n    searxng_url: localhost:8888\n"), 0o600)
	_, err = Load(home, env(nil))
	for _, want := range []string{"config.yaml:2: web.timeout: -2 is not allowed", `config.yaml:4: web.search.backend: "bing" is not allowed (one of searxng, brave, tavily, exa, firecrawl)`, "config.yaml:5: web.search.searxng_url"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v lacks %q", err, want)
		}
	}
}
