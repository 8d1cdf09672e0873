package anthropic

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/packages/param"

	"github.com/hermes-go/hermes/llm"
)

// convertTools turns tool definitions into {name, description,
// input_schema}. The API wants an object schema at the top, so a top-level
// oneOf/anyOf/allOf is dropped; a repeated name is dropped too (the API
// rejects duplicates and the first definition wins).
func convertTools(defs []llm.ToolDef) ([]anthropic.ToolUnionParam, error) {
	if len(defs) == 0 {
		return nil, nil
	}
	out := make([]anthropic.ToolUnionParam, 0, len(defs))
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
		t := &anthropic.ToolParam{Name: d.Name, InputSchema: schema}
		if d.Description != "" {
			t.Description = param.NewOpt(d.Description)
		}
		out = append(out, anthropic.ToolUnionParam{OfTool: t})
	}
	return out, nil
}

func inputSchema(raw json.RawMessage) (anthropic.ToolInputSchemaParam, error) {
	var s anthropic.ToolInputSchemaParam
	if len(bytes.TrimSpace(raw)) == 0 || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		s.Properties = map[string]any{}
		return s, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return s, err
	}
	if p, ok := m["properties"]; ok {
		s.Properties = p
	} else {
		s.Properties = map[string]any{}
	}
	if r, ok := m["required"]; ok {
		if err := json.Unmarshal(r, &s.Required); err != nil {
			return s, fmt.Errorf("required: %w", err)
		}
	}
	for k, v := range m {
		switch k {
		case "type", "properties", "required", "oneOf", "anyOf", "allOf":
			continue
		}
		if s.ExtraFields == nil {
			s.ExtraFields = map[string]any{}
		}
		s.ExtraFields[k] = v
	}
	return s, nil
}
