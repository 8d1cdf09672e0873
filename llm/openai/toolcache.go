package openai

import (
	"sync"

	"github.com/hermes-go/hermes/llm"
)

// toolCache keeps each tool's encoded function object, by its name,
// description and schema: an agent offers the same tools on every call,
// and encoding their schemas was a large part of a call's own cost. The
// process shares one (chatTools): every agent of a server offers the same
// built-in tools, and each agent has a client of its own. It is safe for
// concurrent use and bounded: past maxCachedTools entries (tool sets that
// keep changing) it starts over.
type toolCache struct {
	mu sync.Mutex
	m  map[string][]byte
}

const maxCachedTools = 1024

// chatTools is the cache every chat_completions client uses; the encoding
// depends on the tool alone.
var chatTools toolCache

// encoded is a "tools" array as the encoded objects of its tools, and
// its length once joined.
type encoded struct {
	parts [][]byte
	size  int
}

// encode returns the encoded tools of defs; none for none.
func (c *toolCache) encode(defs []llm.ToolDef) (encoded, error) {
	out := encoded{parts: make([][]byte, len(defs)), size: 2 + max(len(defs)-1, 0)} // brackets and commas
	var key []byte
	for i, t := range defs {
		key = append(append(append(append(append(key[:0], t.Name...), 0), t.Description...), 0), t.Parameters...)
		raw, err := c.one(key, t)
		if err != nil {
			return encoded{}, err
		}
		out.parts[i] = raw
		out.size += len(raw)
	}
	return out, nil
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
