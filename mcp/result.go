package mcp

import (
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hermes-go/hermes/tool"
)

// callResult is what the model reads of a tool's result: its text, a
// line for each image, audio clip or resource, or its structured content
// when it has nothing else.
func callResult(res *sdk.CallToolResult) tool.Result {
	text := contentText(res.Content)
	if text == "" && res.StructuredContent != nil {
		text = string(marshal(res.StructuredContent))
	}
	if res.IsError {
		if text == "" {
			text = "the tool reported an error without saying what"
		}
		return tool.Error(text)
	}
	return tool.Text(text)
}

func contentText(list []sdk.Content) string {
	parts := make([]string, 0, len(list))
	for _, c := range list {
		if s := oneContent(c); s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, "\n")
}

func oneContent(c sdk.Content) string {
	switch v := c.(type) {
	case *sdk.TextContent:
		return v.Text
	case *sdk.ImageContent:
		return fmt.Sprintf("[image: %s, %d bytes]", v.MIMEType, len(v.Data))
	case *sdk.AudioContent:
		return fmt.Sprintf("[audio: %s, %d bytes]", v.MIMEType, len(v.Data))
	case *sdk.ResourceLink:
		s := "[resource link: " + v.URI
		if v.Name != "" {
			s += " (" + v.Name + ")"
		}
		if v.Description != "" {
			s += ": " + v.Description
		}
		return s + "]"
	case *sdk.EmbeddedResource:
		return resourceText(v.Resource)
	case nil:
		return ""
	}
	b, err := json.Marshal(c)
	if err != nil {
		return fmt.Sprintf("[%T]", c)
	}
	return string(b)
}

func resourceText(r *sdk.ResourceContents) string {
	if r == nil {
		return ""
	}
	if r.Text != "" || len(r.Blob) == 0 {
		return r.Text
	}
	return fmt.Sprintf("[resource %s: %s, %d bytes of binary data]", r.URI, r.MIMEType, len(r.Blob))
}
