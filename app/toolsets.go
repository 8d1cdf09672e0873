package app

import (
	"slices"

	"github.com/hermes-go/hermes/config"
)

// Toolsets lists, sorted, the toolsets the toolsets setting and
// --toolsets may name (besides "all"): the built-in ones, "mcp" and one
// per MCP server of cfg.
func Toolsets(cfg *config.Config) []string {
	out := append(append(append(workspaceToolsets(), agentToolsets...), optionalToolsets...), mcpToolsets(cfg)...)
	slices.Sort(out)
	return slices.Compact(out)
}
