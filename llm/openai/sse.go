package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"

	"github.com/openai/openai-go/v3/packages/ssestream"

	"github.com/hermes-go/hermes/llm"
)

// postSSE posts an encoded body and hands the data of each server-sent
// event to fn until [DONE], the end of the stream, or an error. It is what
// the SDK's NewStreaming does, with the body already encoded and each
// event decoded by the caller into a lean type.
func postSSE(ctx context.Context, p *poster, path string, body []byte, fn func(data []byte) error) error {
	raw, err := p.post(ctx, path, body)
	if err != nil {
		return err
	}
	dec := ssestream.NewDecoder(raw)
	defer dec.Close()
	for dec.Next() {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		data := dec.Event().Data
		if bytes.HasPrefix(data, []byte("[DONE]")) {
			break
		}
		if err := fn(data); err != nil {
			return err
		}
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err := dec.Err(); err != nil {
		return transportError(ctx, p.provider, err)
	}
	return nil
}

// decodeEvent decodes one event. Fields of an unexpected type (a float
// token count, an object where a string was expected) are left empty and
// the rest is kept; malformed JSON is an invalid response.
func decodeEvent(provider string, data []byte, v any) error {
	err := json.Unmarshal(data, v)
	var te *json.UnmarshalTypeError
	if err == nil || errors.As(err, &te) {
		return nil
	}
	return &llm.ProviderError{Kind: llm.ErrInvalidResponse, Provider: provider,
		Message: "malformed response: " + err.Error(), Err: err}
}

// isError reports whether an event carried an "error" object: providers
// send one mid-stream, after the 200 status.
func isError(field json.RawMessage) bool {
	return len(field) > 0 && string(field) != "null"
}
