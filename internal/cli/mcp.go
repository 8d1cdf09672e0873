package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/hermes-go/hermes/app"
	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/mcp"
	"github.com/hermes-go/hermes/tool"
)

// newMCPCmd is `hermes mcp list|add|remove|test`: the MCP servers of
// config.yaml; and `hermes mcp serve`: hermes as an MCP server.
func newMCPCmd(e *env) *cobra.Command {
	root := &cobra.Command{Use: "mcp", Short: "List, add, remove and test the MCP servers of config.yaml; serve hermes over MCP"}
	root.AddCommand(newMCPListCmd(e), newMCPTestCmd(e), newMCPAddCmd(e), newMCPRemoveCmd(e), newMCPServeCmd(e))
	return root
}

func loadPlainConfig(e *env) (*config.Config, error) {
	cfg, err := app.LoadConfig(e.getenv)
	if err != nil {
		return nil, &exitError{code: exitFor(err), err: err}
	}
	for _, w := range cfg.Warnings {
		e.warn(w)
	}
	return cfg, nil
}

// connectServers starts the servers of cfg (only name's, when set, even
// if disabled) as a session would, waits for them up to
// mcp_startup_timeout, and returns how they are and their tools.
func connectServers(ctx context.Context, e *env, cfg *config.Config, name string) ([]mcp.Status, *tool.Registry, error) {
	cfg.Toolsets = nil
	if name != "" {
		s, ok := cfg.MCPServers[name]
		if !ok {
			return nil, nil, &exitError{code: exitFailed, err: fmt.Errorf("no MCP server %q in %s", name, filepath.Join(cfg.Home, "config.yaml"))}
		}
		on := true
		s.Enabled = &on
		cfg.MCPServers = map[string]config.MCPServer{name: s}
	}
	wd, err := os.Getwd()
	if err != nil {
		return nil, nil, &exitError{code: exitFailed, err: err}
	}
	reg := &tool.Registry{}
	m, err := app.MCPManager(cfg, wd, e.getenv, reg, nil)
	if err != nil {
		return nil, nil, &exitError{code: exitFor(err), err: err}
	}
	defer m.Close()
	m.Start()
	m.WaitStarted(ctx, config.Seconds(cfg.MCPStartupTimeout))
	st := m.Status()
	for i := range st {
		if st[i].State == mcp.Starting {
			st[i].Err = fmt.Sprintf("no answer within %ds (mcp_startup_timeout)", cfg.MCPStartupTimeout)
		}
	}
	// The tools outlive the manager in a registry of their own.
	kept := &tool.Registry{}
	for _, n := range reg.Names() {
		t, _ := reg.Get(n)
		kept.MustRegister(t)
	}
	return st, kept, nil
}

type mcpRow struct {
	Name      string   `json:"name"`
	Transport string   `json:"transport"`
	State     string   `json:"state"`
	Tools     int      `json:"tools"`
	Refused   []string `json:"refused,omitempty"`
	Error     string   `json:"error,omitempty"`
	Target    string   `json:"target"`
}

func newMCPListCmd(e *env) *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use: "list", Short: "Start every configured server as a session would and show its state, tool count and last error", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := loadPlainConfig(e)
			if err != nil {
				return err
			}
			targets := map[string]string{}
			var disabled []mcpRow
			for name, s := range cfg.MCPServers {
				targets[name] = target(s)
				if !s.IsEnabled() {
					disabled = append(disabled, mcpRow{Name: name, Transport: s.Transport(), State: "disabled", Target: target(s)})
				}
			}
			st, _, err := connectServers(cmdContext(cmd), e, cfg, "")
			if err != nil {
				return err
			}
			rows := disabled
			for _, s := range st {
				rows = append(rows, mcpRow{Name: s.Name, Transport: s.Transport, State: string(s.State), Tools: s.Tools, Refused: s.Refused, Error: s.Err, Target: targets[s.Name]})
			}
			slices.SortFunc(rows, func(a, b mcpRow) int { return strings.Compare(a.Name, b.Name) })
			if asJSON {
				if rows == nil {
					rows = []mcpRow{}
				}
				return printJSON(e.stdout, rows)
			}
			if len(rows) == 0 {
				fmt.Fprintf(e.stdout, "No MCP servers configured. Add one with: hermes mcp add NAME -- COMMAND [ARGS...]  or  hermes mcp add NAME --url URL\n")
				return nil
			}
			printMCPRows(e.stdout, rows)
			return nil
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return c
}

func printMCPRows(w io.Writer, rows []mcpRow) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tTYPE\tSTATE\tTOOLS\tDETAIL")
	for _, r := range rows {
		tools := fmt.Sprint(r.Tools)
		if r.State == "disabled" {
			tools = "-"
		}
		detail := r.Target
		if len(r.Refused) > 0 {
			detail += "; refused (prompt injection): " + strings.Join(r.Refused, ", ")
		}
		if r.Error != "" {
			detail += "; error: " + r.Error
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.Name, r.Transport, r.State, tools, detail)
	}
	tw.Flush()
}

// target is what a server runs or reaches, for a person.
func target(s config.MCPServer) string {
	if s.URL != "" {
		return s.URL
	}
	return strings.TrimSpace(s.Command + " " + strings.Join(s.Args, " "))
}

func newMCPTestCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use: "test NAME", Short: "Start one server (even a disabled one) and list the tools it offers", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := loadPlainConfig(e)
			if err != nil {
				return err
			}
			st, reg, err := connectServers(cmdContext(cmd), e, cfg, args[0])
			if err != nil {
				return err
			}
			s := st[0]
			fmt.Fprintln(e.stdout, s)
			for _, n := range reg.Names() {
				t, _ := reg.Get(n)
				desc, _, _ := strings.Cut(t.Spec().Description, "\n")
				fmt.Fprintf(e.stdout, "  %s  %s\n", n, desc)
			}
			if s.State != mcp.Ready {
				return &exitError{code: exitFailed, err: fmt.Errorf("MCP server %s is %s: %s", s.Name, s.State, s.Err)}
			}
			return nil
		},
	}
}

func newMCPAddCmd(e *env) *cobra.Command {
	var s config.MCPServer
	var envs, headers []string
	var disabled bool
	c := &cobra.Command{
		Use:   "add NAME (--url URL | -- COMMAND [ARGS...])",
		Short: "Add an MCP server to config.yaml (its comments and layout are kept)",
		Example: "  hermes mcp add everything -- npx -y @modelcontextprotocol/server-everything\n" +
			"  hermes mcp add github --url https://api.githubcopilot.com/mcp/ --header 'Authorization=Bearer ${GITHUB_TOKEN}'",
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := args[0]
			if err := config.ValidMCPName(name); err != nil {
				return &exitError{code: exitUsage, err: err}
			}
			if len(args) > 1 {
				s.Command, s.Args = args[1], args[2:]
			}
			switch {
			case s.Command == "" && s.URL == "":
				return &exitError{code: exitUsage, err: errors.New("mcp add: give --url URL, or the command after --: hermes mcp add NAME -- COMMAND [ARGS...]")}
			case s.Command != "" && s.URL != "":
				return &exitError{code: exitUsage, err: errors.New("mcp add: --url or a command, not both")}
			}
			var err error
			if s.Env, err = pairs("--env", envs); err != nil {
				return err
			}
			if s.Headers, err = pairs("--header", headers); err != nil {
				return err
			}
			if disabled {
				off := false
				s.Enabled = &off
			}
			home := config.Home(e.getenv)
			path := filepath.Join(home, "config.yaml")
			if err := config.AddMCPServer(path, name, s); err != nil {
				return &exitError{code: exitFailed, err: err}
			}
			if _, err := config.Load(home, e.getenv); err != nil {
				fmt.Fprintln(e.stderr, "hermes: warning: config.yaml does not load now:", err)
			}
			fmt.Fprintf(e.stdout, "Added MCP server %s to %s. Check it with: hermes mcp test %s\n", name, path, name)
			return nil
		},
	}
	f := c.Flags()
	f.StringVar(&s.URL, "url", "", "the server's URL (streamable HTTP)")
	f.StringVar(&s.Type, "type", "", "transport: stdio, http or sse (default: http with --url, else stdio)")
	f.StringArrayVar(&headers, "header", nil, "an HTTP header as NAME=VALUE (repeatable; ${VAR} is read from the environment or .env)")
	f.StringArrayVar(&envs, "env", nil, "an environment variable as NAME=VALUE for a command (repeatable; ${VAR} as for --header)")
	f.StringVar(&s.Cwd, "cwd", "", "the command's working directory (default: the workspace)")
	f.IntVar(&s.Timeout, "timeout", 0, "seconds one tool call may take (default 120)")
	f.BoolVar(&s.Trusted, "trusted", false, "run the command outside the sandbox")
	f.BoolVar(&disabled, "disabled", false, "add it switched off (enabled: false)")
	f.StringSliceVar(&s.Tools.Include, "include", nil, "offer only these tools (glob patterns, comma-separated)")
	f.StringSliceVar(&s.Tools.Exclude, "exclude", nil, "leave out these tools (glob patterns, comma-separated)")
	return c
}

func pairs(flag string, list []string) (map[string]string, error) {
	if len(list) == 0 {
		return nil, nil
	}
	out := map[string]string{}
	for _, kv := range list {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, &exitError{code: exitUsage, err: fmt.Errorf("%s %q: write NAME=VALUE", flag, kv)}
		}
		out[strings.TrimSpace(k)] = v
	}
	return out, nil
}

func newMCPRemoveCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use: "remove NAME", Short: "Remove an MCP server from config.yaml (its comments and layout are kept)", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			path := filepath.Join(config.Home(e.getenv), "config.yaml")
			found, err := config.RemoveMCPServer(path, args[0])
			if err != nil {
				return &exitError{code: exitFailed, err: err}
			}
			if !found {
				return &exitError{code: exitFailed, err: fmt.Errorf("no MCP server %q in %s", args[0], path)}
			}
			fmt.Fprintf(e.stdout, "Removed MCP server %s from %s\n", args[0], path)
			return nil
		},
	}
}

func cmdContext(cmd *cobra.Command) context.Context {
	if ctx := cmd.Context(); ctx != nil {
		return ctx
	}
	return context.Background()
}
