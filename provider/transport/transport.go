// Package transport is the default provider.Factory: it maps each API
// mode to its real transport. It lives apart from package provider so
// that resolution, retry and compression do not depend on the provider
// SDKs.
package transport

import (
	"fmt"

	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/anthropic"
	"github.com/hermes-go/hermes/llm/openai"
)

// New builds the transport of mode: Chat Completions and Responses over
// openai-go, Anthropic Messages over the Anthropic SDK. Their SDK retries
// are off; provider.Chain is the only retry layer. New matches
// provider.Factory.
func New(mode llm.APIMode, opts llm.Options) (llm.Client, error) {
	switch mode {
	case llm.ChatCompletions, "":
		return openai.NewChat(opts), nil
	case llm.CodexResponses:
		return openai.NewResponses(opts), nil
	case llm.AnthropicMessages:
		return anthropic.New(opts), nil
	}
	return nil, fmt.Errorf("no transport for api_mode %q", mode)
}
