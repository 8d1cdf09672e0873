package openai

import (
	"context"
	"errors"

	"github.com/hermes-go/hermes/llm"
)

const chatPath = "chat/completions"

// Chat is the chat_completions transport: OpenAI Chat Completions and the
// many servers that speak it (OpenRouter, Azure, Vercel, xAI, z.ai, Groq,
// Kimi, DeepSeek, llama.cpp, vLLM, Ollama, ...). It is safe for concurrent
// use.
type Chat struct {
	f      flavor
	stream bool
	args   argsMemo
	http   *poster
}

var _ llm.Client = (*Chat)(nil)

// NewChat returns a chat_completions client for opts.
func NewChat(opts llm.Options) *Chat {
	f := newFlavor(opts)
	return &Chat{
		f:      f,
		stream: !opts.NoStream,
		http:   newPoster(opts, f),
	}
}

// Complete performs one call, streaming unless the client was built with
// NoStream. See llm.Client.
func (c *Chat) Complete(ctx context.Context, req *llm.Request, sink func(llm.Delta)) (*llm.Response, error) {
	if req == nil {
		return nil, errors.New("openai: nil request")
	}
	if sink == nil {
		sink = func(llm.Delta) {}
	}
	body, err := c.encodeChat(req, c.stream)
	if err != nil {
		return nil, err
	}
	if !c.stream {
		raw, err := c.http.postJSON(ctx, chatPath, body)
		if err != nil {
			return nil, err
		}
		var res chatCompletion
		if err := decodeBody(c.f.name, raw, &res); err != nil {
			return nil, err
		}
		return fromCompletion(c.f.name, &res, sink)
	}

	acc := chatStream{sink: sink}
	done, err := postSSE(ctx, c.http, chatPath, body, func(data []byte) error {
		var ch chatChunk
		if err := decodeEvent(c.f.name, data, &ch); err != nil {
			return err
		}
		if isError(ch.Error) {
			return streamError(c.f.name, data)
		}
		acc.chunk(&ch)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return acc.response(c.f.name, done)
}
