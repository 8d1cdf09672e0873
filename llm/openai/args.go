package openai

import (
	"bytes"
	"encoding/json"
	"strings"
	"sync"
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

// argsMemo remembers canonical forms. Every call resends the whole
// history, so the same arguments are canonicalised turn after turn; the
// memo makes that a map lookup. It is bounded by total bytes and simply
// starts over when full.
type argsMemo struct {
	mu    sync.Mutex
	m     map[string]string
	bytes int
}

const (
	argsMemoMaxBytes = 4 << 20
	argsMemoMaxEntry = 64 << 10 // larger arguments are canonicalised every time
)

func (a *argsMemo) canonical(s string) string {
	if len(s) > argsMemoMaxEntry {
		return canonicalArgs(s)
	}
	a.mu.Lock()
	v, ok := a.m[s]
	a.mu.Unlock()
	if ok {
		return v
	}
	v = canonicalArgs(s)
	a.mu.Lock()
	if a.m == nil || a.bytes+len(s)+len(v) > argsMemoMaxBytes {
		a.m, a.bytes = make(map[string]string), 0
	}
	a.m[s] = v
	a.bytes += len(s) + len(v)
	a.mu.Unlock()
	return v
}
