package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// maxModelsBody bounds a /models reply; a long list of ids is a few KB.
const maxModelsBody = 4 << 20

// ListModels asks an OpenAI-compatible server which models it serves
// (GET baseURL/models) and returns their ids in the server's order. A
// reply that is not an OpenAI model list (an HTML page, another API on the
// same port) is an error.
func ListModels(ctx context.Context, baseURL, apiKey string) ([]string, error) {
	url := strings.TrimRight(strings.TrimSpace(baseURL), "/") + "/models"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	if apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+apiKey)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", url, res.Status)
	}
	var body struct {
		Data *[]struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.NewDecoder(io.LimitReader(res.Body, maxModelsBody)).Decode(&body); err != nil {
		return nil, fmt.Errorf("GET %s: not a model list: %w", url, err)
	}
	if body.Data == nil {
		return nil, fmt.Errorf("GET %s: not a model list (no data)", url)
	}
	ids := []string{}
	for _, m := range *body.Data {
		if m.ID != "" {
			ids = append(ids, m.ID)
		}
	}
	return ids, nil
}
