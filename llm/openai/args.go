package openai

import (
	"bytes"
	"encoding/json"
	"strings"
)

// canonicalArgs returns tool-call arguments in a stable form for sending
// back to the provider: valid JSON is re-encoded compact with sorted keys
// (so the same history always produces the same bytes and prompt caches
// hit), empty arguments become "{}", and anything else is sent unchanged.
func canonicalArgs(s string) string {
	t := strings.TrimSpace(s)
	if t == "" {
		return "{}"
	}
	if t[0] != '{' && t[0] != '[' {
		return s
	}
	dec := json.NewDecoder(strings.NewReader(t))
	dec.UseNumber() // keep big integers and exact decimals as written
	var v any
	if err := dec.Decode(&v); err != nil || dec.InputOffset() != int64(len(t)) {
		return s
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return s
	}
	return strings.TrimSuffix(buf.String(), "\n")
}

// argsComplete reports whether streamed arguments parsed as JSON. Empty
// arguments count as complete: providers send "" for tools without
// parameters.
func argsComplete(s string) bool {
	t := strings.TrimSpace(s)
	return t == "" || json.Valid([]byte(t))
}
