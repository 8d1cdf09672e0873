package openai

import (
	"bytes"
	"sync"

	"github.com/hermes-go/hermes/llm"
)

// toolCache keeps each tool's encoded function object, by its name,
// description and schema: an agent offers the same tools on every call,
// and encoding their schemas was a large part of a call's own cost. It is
// safe for concurrent use and bounded: past maxCachedTools entries (tool
// sets that keep changing) it starts over.
type toolCache struct {
	mu sync.Mutex
	m  map[string][]byte
}

const maxCachedTools = 1024

// encode returns the "tools" array of defs, encoded; nil for none.
func (c *toolCache) encode(defs []llm.ToolDef) ([]byte, error) {
	if len(defs) == 0 {
		return nil, nil
	}
	var out bytes.Buffer
	var key []byte
	out.WriteByte('[')
	for i, t := range defs {
		key = append(append(append(append(append(key[:0], t.Name...), 0), t.Description...), 0), t.Parameters...)
		raw, err := c.one(key, t)
		if err != nil {
			return nil, err
		}
		if i > 0 {
			out.WriteByte(',')
		}
		out.Write(raw)
	}
	out.WriteByte(']')
	return out.Bytes(), nil
}

// one is t's encoded object; key is its name, description and schema.
func (c *toolCache) one(key []byte, t llm.ToolDef) ([]byte, error) {
	c.mu.Lock()
	raw, ok := c.m[string(key)] // no copy of key for a lookup
	c.mu.Unlock()
	if ok {
		return raw, nil
	}
	raw, err := chatToolJSON(t)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if c.m == nil || len(c.m) >= maxCachedTools {
		c.m = map[string][]byte{}
	}
	c.m[string(key)] = raw
	c.mu.Unlock()
	return raw, nil
}
