package mcp

import (
	"context"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hermes-go/hermes/tool"
)

type cursorArgs struct {
	Cursor string `json:"cursor,omitempty" jsonschema:"the next_cursor of an earlier page"`
}

type readResourceArgs struct {
	URI string `json:"uri" jsonschema:"the URI of the resource, as list_resources gives it"`
}

type getPromptArgs struct {
	Name      string            `json:"name" jsonschema:"the prompt's name, as list_prompts gives it"`
	Arguments map[string]string `json:"arguments,omitempty" jsonschema:"the prompt's arguments by name"`
}

// utilityTools are the resource and prompt tools of a server that has
// resources or prompts.
func (c *conn) utilityTools(resources, prompts bool) []tool.Tool {
	var out []tool.Tool
	spec := func(short, desc string) tool.Spec {
		return tool.Spec{Name: ToolName(c.cfg.Name, short), Description: desc, Toolset: Toolset(c.cfg.Name),
			Class: tool.Parallel, Timeout: c.cfg.timeout(), MaxResultChars: MaxResultChars}
	}
	if resources && !c.cfg.NoResources {
		out = append(out,
			tool.Must(tool.New(spec("list_resources", fmt.Sprintf("List the resources (files, records, ...) MCP server %s offers, with their URIs.", c.cfg.Name)), c.listResources)),
			tool.Must(tool.New(spec("read_resource", fmt.Sprintf("Read one resource of MCP server %s by its URI.", c.cfg.Name)), c.readResource)))
	}
	if prompts && !c.cfg.NoPrompts {
		out = append(out,
			tool.Must(tool.New(spec("list_prompts", fmt.Sprintf("List the prompt templates MCP server %s offers, with their arguments.", c.cfg.Name)), c.listPrompts)),
			tool.Must(tool.New(spec("get_prompt", fmt.Sprintf("Get one prompt template of MCP server %s, filled in with its arguments.", c.cfg.Name)), c.getPrompt)))
	}
	return out
}

func (c *conn) listResources(ctx context.Context, _ tool.Call, a cursorArgs) (tool.Result, error) {
	sess, err := c.session()
	if err != nil {
		return tool.Error(err.Error()), nil
	}
	res, err := sess.ListResources(ctx, &sdk.ListResourcesParams{Cursor: a.Cursor})
	if err != nil {
		return c.callFailed(ctx, sess, "listing resources", err)
	}
	var b strings.Builder
	for _, r := range res.Resources {
		fmt.Fprintf(&b, "%s  %s", r.URI, r.Name)
		if r.MIMEType != "" {
			fmt.Fprintf(&b, " (%s)", r.MIMEType)
		}
		if r.Description != "" {
			fmt.Fprintf(&b, ": %s", r.Description)
		}
		b.WriteByte('\n')
	}
	if a.Cursor == "" {
		// Templates are few; they are listed with the first page.
		if tr, err := sess.ListResourceTemplates(ctx, nil); err == nil && len(tr.ResourceTemplates) > 0 {
			b.WriteString("Templates (fill in the {placeholders} and read the URI):\n")
			for _, t := range tr.ResourceTemplates {
				fmt.Fprintf(&b, "%s  %s", t.URITemplate, t.Name)
				if t.Description != "" {
					fmt.Fprintf(&b, ": %s", t.Description)
				}
				b.WriteByte('\n')
			}
		}
	}
	if res.NextCursor != "" {
		fmt.Fprintf(&b, "next_cursor: %s\n", res.NextCursor)
	}
	if b.Len() == 0 {
		return tool.Text("(no resources)"), nil
	}
	return tool.Text(strings.TrimRight(b.String(), "\n")), nil
}

func (c *conn) readResource(ctx context.Context, _ tool.Call, a readResourceArgs) (tool.Result, error) {
	sess, err := c.session()
	if err != nil {
		return tool.Error(err.Error()), nil
	}
	res, err := sess.ReadResource(ctx, &sdk.ReadResourceParams{URI: a.URI})
	if err != nil {
		return c.callFailed(ctx, sess, "reading "+a.URI, err)
	}
	parts := make([]string, 0, len(res.Contents))
	for _, r := range res.Contents {
		parts = append(parts, resourceText(r))
	}
	return tool.Text(strings.Join(parts, "\n")), nil
}

func (c *conn) listPrompts(ctx context.Context, _ tool.Call, a cursorArgs) (tool.Result, error) {
	sess, err := c.session()
	if err != nil {
		return tool.Error(err.Error()), nil
	}
	res, err := sess.ListPrompts(ctx, &sdk.ListPromptsParams{Cursor: a.Cursor})
	if err != nil {
		return c.callFailed(ctx, sess, "listing prompts", err)
	}
	var b strings.Builder
	for _, p := range res.Prompts {
		b.WriteString(p.Name)
		if p.Description != "" {
			fmt.Fprintf(&b, ": %s", p.Description)
		}
		if len(p.Arguments) > 0 {
			args := make([]string, len(p.Arguments))
			for i, a := range p.Arguments {
				args[i] = a.Name
				if a.Required {
					args[i] += " (required)"
				}
			}
			fmt.Fprintf(&b, " [arguments: %s]", strings.Join(args, ", "))
		}
		b.WriteByte('\n')
	}
	if res.NextCursor != "" {
		fmt.Fprintf(&b, "next_cursor: %s\n", res.NextCursor)
	}
	if b.Len() == 0 {
		return tool.Text("(no prompts)"), nil
	}
	return tool.Text(strings.TrimRight(b.String(), "\n")), nil
}

func (c *conn) getPrompt(ctx context.Context, _ tool.Call, a getPromptArgs) (tool.Result, error) {
	sess, err := c.session()
	if err != nil {
		return tool.Error(err.Error()), nil
	}
	res, err := sess.GetPrompt(ctx, &sdk.GetPromptParams{Name: a.Name, Arguments: a.Arguments})
	if err != nil {
		return c.callFailed(ctx, sess, "getting prompt "+a.Name, err)
	}
	var b strings.Builder
	if res.Description != "" {
		fmt.Fprintf(&b, "%s\n\n", res.Description)
	}
	for _, m := range res.Messages {
		fmt.Fprintf(&b, "%s: %s\n", m.Role, oneContent(m.Content))
	}
	return tool.Text(strings.TrimRight(b.String(), "\n")), nil
}
