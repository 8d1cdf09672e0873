package app

import (
	"context"
	"fmt"

	"github.com/hermes-go/hermes/llm/openai"
	"github.com/hermes-go/hermes/tool"
)

// PromptSize is what every request of the conversation carries before its
// messages: the system prompt by part and each offered tool's definition,
// in bytes as the Chat Completions format sends them.
type PromptSize struct {
	System      []SizePart `json:"system"`
	SystemBytes int        `json:"system_bytes"`
	Tools       []ToolSize `json:"tools"`
	ToolBytes   int        `json:"tool_bytes"`
	// TotalBytes is SystemBytes plus ToolBytes.
	TotalBytes int `json:"total_bytes"`
}

// SizePart is one part of the system prompt.
type SizePart struct {
	Name  string `json:"name"`
	Bytes int    `json:"bytes"`
}

// ToolSize is one offered tool's definition.
type ToolSize struct {
	Name    string `json:"name"`
	Toolset string `json:"toolset"`
	Bytes   int    `json:"bytes"`
}

// PromptSize measures the system prompt the conversation's session would
// start with and the tools its next model call would offer, without
// calling a model. The parts' bytes are the text of each part; the
// blank lines between parts count in SystemBytes.
func (c *Conversation) PromptSize(ctx context.Context) (PromptSize, error) {
	var out PromptSize
	system, err := c.SystemPrompt(ctx)
	if err != nil {
		return out, err
	}
	model, prov := c.Endpoint().Model, c.Endpoint().Provider
	b := c.promptBuilder(model, prov)
	b.ToolNames = c.toolNames()
	parts, _ := b.Parts()
	for _, p := range parts {
		text := p.Text
		if c.rt.redact != nil {
			text = c.rt.redact(text)
		}
		out.System = append(out.System, SizePart{p.Name, len(text)})
	}
	out.SystemBytes = len(system)
	for _, s := range c.ToolSpecs() {
		n, err := openai.ChatToolBytes(tool.Def(s))
		if err != nil {
			return out, fmt.Errorf("prompt size: %w", err)
		}
		out.Tools = append(out.Tools, ToolSize{s.Name, s.Toolset, n})
		out.ToolBytes += n
	}
	out.TotalBytes = out.SystemBytes + out.ToolBytes
	return out, nil
}
