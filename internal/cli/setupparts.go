package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/hermes-go/hermes/app"
	"github.com/hermes-go/hermes/config"
)

// newSetupGatewayCmd is hermes gateway setup under hermes setup, with
// the platform asked when it is not named.
func newSetupGatewayCmd(e *env) *cobra.Command {
	c := newGatewaySetupCmd(e)
	c.Use = "gateway [" + strings.Join(config.GatewayPlatformNames(), "|") + "]"
	c.Short = "Connect a chat platform: its tokens to .env, its settings to config.yaml (hermes gateway setup)"
	c.Args = cobra.MaximumNArgs(1)
	run := c.RunE
	c.RunE = func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 {
			if ni, _ := cmd.Flags().GetBool("non-interactive"); ni {
				return &exitError{code: exitUsage, err: fmt.Errorf("name the platform: hermes setup gateway %s", strings.Join(config.GatewayPlatformNames(), "|"))}
			}
			name, err := askPlatform(newPrompter(e))
			if err != nil {
				return &exitError{code: exitFailed, err: err}
			}
			args = []string{name}
		}
		return run(cmd, args)
	}
	return c
}

func askPlatform(p prompter) (string, error) {
	names := config.GatewayPlatformNames()
	opts := make([]option, len(names))
	for i, n := range names {
		opts[i] = option{name: n}
	}
	i, err := p.choose("Chat platform", opts, 0)
	if err != nil {
		return "", err
	}
	return names[i], nil
}

// runSetupGateway runs hermes gateway setup PLATFORM from the setup
// wizard, asking the platform when it is "", on p's input.
func runSetupGateway(e *env, platform string, p prompter) error {
	if platform == "" {
		var err error
		if platform, err = askPlatform(p); err != nil {
			return err
		}
	}
	sub := *e
	if lp, ok := p.(*linePrompter); ok {
		sub.stdin = lp.in // the lines already read ahead stay for its questions
	}
	c := newGatewaySetupCmd(&sub)
	c.SetArgs([]string{platform})
	c.SetIn(sub.stdin)
	c.SetOut(e.stdout)
	c.SetErr(e.stderr)
	c.SilenceErrors, c.SilenceUsage = true, true
	return c.Execute()
}

func newSetupToolsCmd(e *env) *cobra.Command {
	var enable, disable []string
	var asJSON bool
	c := &cobra.Command{
		Use:   "tools",
		Short: "Turn toolsets on or off (the toolsets setting of config.yaml)",
		Long: "hermes setup tools shows every toolset with a box to tick on a terminal; --enable and --disable\n" +
			"(comma-separated) turn toolsets on and off without asking. With every toolset on, the toolsets\n" +
			"setting is removed (all is the default).",
		Example: "  hermes setup tools\n  hermes setup tools --disable web,vision\n  hermes setup tools --enable web --json",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(enable) == 0 && len(disable) == 0 && !isTerminal(e.stdin) && !asJSON {
				return &exitError{code: exitUsage, err: errors.New("standard input is not a terminal to ask on: pass --enable or --disable NAMES")}
			}
			var p prompter
			if len(enable) == 0 && len(disable) == 0 && !asJSON {
				p = newPrompter(e)
			}
			if err := runSetupTools(e, p, enable, disable); err != nil {
				return err
			}
			if asJSON {
				cfg, err := loadForEdit(e)
				if err != nil {
					return err
				}
				on := enabledToolsets(cfg)
				b, _ := json.Marshal(map[string]any{"toolsets": on, "all": len(cfg.Toolsets) == 0})
				fmt.Fprintln(e.stdout, string(b))
			}
			return nil
		},
	}
	c.Flags().StringSliceVar(&enable, "enable", nil, "toolsets to turn on")
	c.Flags().StringSliceVar(&disable, "disable", nil, "toolsets to turn off")
	c.Flags().BoolVar(&asJSON, "json", false, `print the toolsets on afterwards as JSON: {"toolsets": [...], "all": bool}`)
	return c
}

// enabledToolsets are the toolsets on under cfg's toolsets setting.
func enabledToolsets(cfg *config.Config) []string {
	all := app.Toolsets(cfg)
	if len(cfg.Toolsets) == 0 || slices.Contains(cfg.Toolsets, "all") {
		return all
	}
	var on []string
	for _, t := range all {
		if slices.Contains(cfg.Toolsets, t) {
			on = append(on, t)
		}
	}
	return on
}

// runSetupTools turns toolsets on and off: the names given, else (p not
// nil) as ticked on p, and writes the toolsets setting.
func runSetupTools(e *env, p prompter, enable, disable []string) error {
	cfg, err := loadForEdit(e)
	if err != nil {
		return err
	}
	all := app.Toolsets(cfg)
	if len(cfg.MCPServers) == 0 {
		all = slices.DeleteFunc(all, func(t string) bool { return t == "mcp" }) // nothing to turn on or off
	}
	cur := enabledToolsets(cfg)
	on := make([]bool, len(all))
	for i, t := range all {
		on[i] = slices.Contains(cur, t)
	}
	for _, list := range [][]string{enable, disable} {
		for _, n := range list {
			if !slices.Contains(all, n) {
				return &exitError{code: exitUsage, err: fmt.Errorf("no toolset %q (toolsets: %s)", n, strings.Join(all, ", "))}
			}
		}
	}
	if p != nil {
		opts := make([]option, len(all))
		for i, t := range all {
			opts[i] = option{name: t, detail: toolsetDetail(t)}
		}
		if on, err = p.toggle("Toolsets", opts, on); err != nil {
			return &exitError{code: exitFailed, err: err}
		}
	}
	for i, t := range all {
		if slices.Contains(enable, t) {
			on[i] = true
		}
		if slices.Contains(disable, t) {
			on[i] = false
		}
	}
	var names []string
	for i, t := range all {
		if on[i] {
			names = append(names, t)
		}
	}
	path := filepath.Join(cfg.Home, "config.yaml")
	if len(cfg.MCPServers) == 0 {
		names = append(names, "mcp") // MCP servers added later start as they would without the setting
	}
	slices.Sort(names)
	change := config.Change{Key: "toolsets", Value: "[" + strings.Join(names, ", ") + "]"}
	if len(names) >= len(all) && !slices.ContainsFunc(all, func(t string) bool { return !slices.Contains(names, t) }) {
		change = config.Change{Key: "toolsets", Unset: true}
	}
	if err := config.SetKeys(path, change); err != nil {
		return &exitError{code: exitFailed, err: err}
	}
	if change.Unset {
		fmt.Fprintf(e.stderr, "Every toolset is on (%s: no toolsets setting).\n", path)
	} else {
		fmt.Fprintf(e.stderr, "Wrote toolsets: [%s] to %s.\n", strings.Join(names, ", "), path)
	}
	return nil
}

// toolsetDetail says what a toolset's tools do.
func toolsetDetail(name string) string {
	switch name {
	case "terminal":
		return "run commands (sandboxed)"
	case "file":
		return "read, write, search files"
	case "web":
		return "search the web, read pages"
	case "vision":
		return "look at images"
	case "memory":
		return "remember across sessions"
	case "todo":
		return "a task list for the turn"
	case "session_search":
		return "search past sessions"
	case "clarify":
		return "ask you a question"
	case "delegation":
		return "hand work to subagents"
	case "cronjob":
		return "schedule jobs"
	case "code":
		return "run Python that calls tools"
	case "mcp":
		return "every MCP server's tools"
	}
	if strings.HasPrefix(name, "mcp-") {
		return "the tools of MCP server " + strings.TrimPrefix(name, "mcp-")
	}
	return ""
}
