package anthropic

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/hermes-go/hermes/llm"
)

// schemaCacheLimit bounds the schemas a Client remembers.
const schemaCacheLimit = 1024

// schemaCache remembers converted input schemas: the same tools go out on
// every call, and reparsing their schemas would cost more than the rest
// of the request. An entry is reused only when the definition's bytes are
// unchanged. Safe for concurrent use.
type schemaCache struct {
	mu sync.Mutex
	m  map[string]cachedSchema
}

type cachedSchema struct {
	params json.RawMessage // the definition's parameters, as given
	schema json.RawMessage // the input_schema sent
}

func (c *schemaCache) get(name string, params json.RawMessage) (json.RawMessage, error) {
	c.mu.Lock()
	e, ok := c.m[name]
	c.mu.Unlock()
	if ok && bytes.Equal(e.params, params) {
		return e.schema, nil
	}
	schema, err := inputSchema(params)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if c.m == nil || len(c.m) >= schemaCacheLimit {
		c.m = make(map[string]cachedSchema)
	}
	c.m[name] = cachedSchema{params: bytes.Clone(params), schema: schema}
	c.mu.Unlock()
	return schema, nil
}

// convertTools turns tool definitions into {name, description,
// input_schema}. The API wants an object schema at the top, so a top-level
// oneOf/anyOf/allOf is dropped; a repeated name is dropped too (the API
// rejects duplicates and the first definition wins).
func (c *schemaCache) convertTools(defs []llm.ToolDef) ([]toolDef, error) {
	if len(defs) == 0 {
		return nil, nil
	}
	out := make([]toolDef, 0, len(defs))
	seen := make(map[string]bool, len(defs))
	for _, d := range defs {
		if seen[d.Name] {
			continue
		}
		seen[d.Name] = true
		schema, err := c.get(d.Name, d.Parameters)
		if err != nil {
			return nil, fmt.Errorf("anthropic: tool %q: parameters schema: %w", d.Name, err)
		}
		out = append(out, toolDef{name: d.Name, description: d.Description, schema: schema})
	}
	return out, nil
}

// inputSchema builds the input_schema from the tool's JSON schema. The
// bytes are deterministic (keys sorted, values compacted): tools lead the
// cached prompt prefix, so they must not change from call to call.
func inputSchema(raw json.RawMessage) (json.RawMessage, error) {
	m := map[string]json.RawMessage{}
	if t := bytes.TrimSpace(raw); len(t) > 0 && !bytes.Equal(t, []byte("null")) {
		if err := json.Unmarshal(t, &m); err != nil {
			return nil, err
		}
	}
	for _, k := range []string{"oneOf", "anyOf", "allOf"} {
		delete(m, k)
	}
	m["type"] = json.RawMessage(`"object"`)
	if _, ok := m["properties"]; !ok {
		m["properties"] = json.RawMessage(`{}`)
	}
	return json.Marshal(m)
}
