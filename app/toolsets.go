package app

import (
	"slices"

	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/skills"
)

// KnownToolsets lists the toolset names a toolsets setting (--toolsets,
// config.yaml's toolsets) may use with cfg: the built-in toolsets, one
// per MCP server of cfg, and "all"; sorted. It builds nothing, so shell
// completion can offer them.
func KnownToolsets(cfg *config.Config) []string {
	names := slices.Concat([]string{"all", skills.Toolset}, workspaceToolsets(), agentToolsets, optionalToolsets, mcpToolsets(cfg))
	slices.Sort(names)
	return slices.Compact(names)
}
