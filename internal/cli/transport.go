package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/anthropic"
	"github.com/hermes-go/hermes/llm/openai"
)

// newTransport builds the transport of an API mode.
func newTransport(mode llm.APIMode, opts llm.Options) (llm.Client, error) {
	switch mode {
	case llm.ChatCompletions, "":
		return openai.NewChat(opts), nil
	case llm.CodexResponses:
		return openai.NewResponses(opts), nil
	case llm.AnthropicMessages:
		return anthropic.New(opts), nil
	}
	return nil, fmt.Errorf("unknown api mode %q", mode)
}

// discoverModel asks an OpenAI-compatible server which models it serves
// and returns the first, for a local server started without --model.
func discoverModel(ctx context.Context, baseURL, apiKey string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(baseURL, "/")+"/models", nil)
	if err != nil {
		return "", err
	}
	if apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+apiKey)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("GET /models: %s", resp.Status)
	}
	var body struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		return "", fmt.Errorf("GET /models: %w", err)
	}
	if len(body.Data) == 0 || body.Data[0].ID == "" {
		return "", fmt.Errorf("GET /models: the server lists no model")
	}
	return body.Data[0].ID, nil
}
