package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/openai/openai-go/v3/packages/ssestream"

	"github.com/hermes-go/hermes/llm"
)

// postSSE posts an encoded body and hands the data of each server-sent
// event to fn until [DONE], the end of the stream, or an error; done
// reports whether [DONE] came. It is what the SDK's NewStreaming does,
// with the body already encoded and each event decoded by the caller into
// a lean type.
func postSSE(ctx context.Context, p *poster, path string, body []byte, fn func(data []byte) error) (done bool, err error) {
	raw, err := p.post(ctx, path, body)
	if err != nil {
		return false, err
	}
	dec := ssestream.NewDecoder(raw)
	defer dec.Close()
	for dec.Next() {
		if ctx.Err() != nil {
			return false, ctx.Err()
		}
		data := dec.Event().Data
		if bytes.HasPrefix(data, []byte("[DONE]")) {
			done = true
			break
		}
		if err := fn(data); err != nil {
			return false, err
		}
	}
	if ctx.Err() != nil {
		return false, ctx.Err()
	}
	if err := dec.Err(); err != nil {
		return false, transportError(ctx, p.provider, err)
	}
	return done, nil
}

// decodeBody decodes a whole non-streamed reply. A body that stops before
// its JSON value ends (or is empty) was cut short; any other malformed
// JSON is an invalid response.
func decodeBody(provider string, raw []byte, v any) error {
	err := decodeEvent(provider, raw, v)
	if err != nil && endsEarly(raw) {
		return cutShort(provider, fmt.Sprintf("response body ended before its JSON was complete (%d bytes received)", len(raw)))
	}
	return err
}

// endsEarly reports whether b is nothing, or the beginning of a JSON value.
func endsEarly(b []byte) bool {
	var v json.RawMessage
	err := json.NewDecoder(bytes.NewReader(b)).Decode(&v)
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
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
