package anthropic

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/hermes-go/hermes/llm"
)

// convertTools turns tool definitions into {name, description,
// input_schema}. The API wants an object schema at the top, so a top-level
// oneOf/anyOf/allOf is dropped; a repeated name is dropped too (the API
// rejects duplicates and the first definition wins).
func convertTools(defs []llm.ToolDef) ([]toolDef, error) {
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
		schema, err := inputSchema(d.Parameters)
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
