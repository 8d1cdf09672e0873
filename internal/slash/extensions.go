package slash

import (
	"context"
	"fmt"
	"strings"

	"github.com/hermes-go/hermes/app"
)

func extensionCommands() []Command {
	return []Command{
		{Name: "reload-mcp", Summary: "read mcp_servers from config.yaml again and restart what changed", Run: runReloadMCP},
	}
}

func runReloadMCP(ctx context.Context, h Host, _ string) error {
	rt := h.Runtime()
	if err := rt.ReloadMCP(ctx); err != nil {
		return fmt.Errorf("/reload-mcp: %w", err)
	}
	list := rt.MCPStatus()
	if len(list) == 0 {
		h.Print(Info, "No MCP servers are configured (mcp_servers in config.yaml).")
		return nil
	}
	var b strings.Builder
	for _, st := range list {
		b.WriteString(st.String() + "\n")
	}
	h.Print(Info, strings.TrimRight(b.String(), "\n"))
	return nil
}

// RegisterSkills makes each skill installed for rt a command: /NAME
// [request] sends the skill's instructions with the request. A skill
// whose name a command already has is left out and named in the
// returned warnings: the built-in commands always win.
func RegisterSkills(r *Registry, rt *app.Runtime) (warnings []string) {
	for _, name := range rt.SkillNames() {
		err := r.Register(Command{
			Name:    name,
			Args:    "[request]",
			Summary: "use the skill " + name,
			Skill:   true,
			Run: func(_ context.Context, h Host, request string) error {
				msg, err := h.Runtime().SkillMessage(name, request)
				if err != nil {
					return fmt.Errorf("/%s: %w", name, err)
				}
				h.Send(msg)
				return nil
			},
		})
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("skill %q is not a slash command: %v", name, err))
		}
	}
	return warnings
}
