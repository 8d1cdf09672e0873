package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/hermes-go/hermes/llm"
)

// FindLocalServers probes the local servers Discover would (the usual
// ports, or HERMES_LOCAL_PORTS) at once and returns each that answers,
// in order of preference, with the models it offers (possibly none).
func (r Resolver) FindLocalServers(ctx context.Context) ([]Found, error) {
	servers, err := r.localServers()
	if err != nil || len(servers) == 0 {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	answers := make([]*Found, len(servers))
	var wg sync.WaitGroup
	for i, s := range servers {
		wg.Go(func() {
			if m, err := ListModels(ctx, s.BaseURL, ""); err == nil {
				f := &Found{Server: s, Models: m}
				if len(m) > 0 {
					f.Model = m[0]
				}
				answers[i] = f
			}
		})
	}
	wg.Wait()
	var out []Found
	for _, a := range answers {
		if a != nil {
			out = append(out, *a)
		}
	}
	return out, nil
}

// EndpointModels lists the models an endpoint's provider offers: GET
// /models in the OpenAI format, or Anthropic's /v1/models with its
// headers for an Anthropic Messages endpoint.
func EndpointModels(ctx context.Context, ep Endpoint) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, modelsTimeout)
	defer cancel()
	if ep.APIMode != llm.AnthropicMessages {
		return ListModels(ctx, ep.BaseURL, ep.APIKey)
	}
	base := strings.TrimRight(ep.BaseURL, "/")
	if !strings.HasSuffix(base, "/v1") {
		base += "/v1"
	}
	url := base + "/models?limit=1000"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("X-Api-Key", ep.APIKey)
	req.Header.Set("Anthropic-Version", "2023-06-01")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", url, res.Status)
	}
	var body struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.NewDecoder(io.LimitReader(res.Body, maxModelsBody)).Decode(&body); err != nil {
		return nil, fmt.Errorf("GET %s: not a model list: %w", url, err)
	}
	ids := []string{}
	for _, m := range body.Data {
		if m.ID != "" {
			ids = append(ids, m.ID)
		}
	}
	return ids, nil
}
