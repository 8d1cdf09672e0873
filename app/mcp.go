package app

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hermes-go/hermes/internal/lazyre"

	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/mcp"
	"github.com/hermes-go/hermes/redact"
	"github.com/hermes-go/hermes/sandbox"
	"github.com/hermes-go/hermes/tool"
)

// MCPManager builds the manager of the MCP servers cfg configures for a
// runtime in workdir (enabled ones, and of those only the ones the
// toolsets setting selects), not yet started: tools go to reg, problems
// to onWarning (from the servers' goroutines too). Stdio servers run
// under the runtime's sandbox unless trusted, with the process
// environment less its secrets plus their own env. getenv (nil:
// os.Getenv), with HERMES_HOME/.env behind it, expands ${VAR} in their
// settings. hermes mcp list uses it without a runtime.
func MCPManager(cfg *config.Config, workdir string, getenv func(string) string, reg *tool.Registry, onWarning func(string)) (*mcp.Manager, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	getenv, _, err := withDotEnv(cfg.Home, getenv)
	if err != nil {
		return nil, err
	}
	policy, err := SandboxPolicy(cfg, workdir, getenv)
	if err != nil {
		return nil, err
	}
	return newMCPManager(cfg, workdir, getenv, policy, nil, reg, onWarning)
}

// newMCPManager is MCPManager with the environment (.env included) and
// the sandbox policy already made; runner, a Runner of policy, starts
// the sandboxed servers (nil: the manager starts its own).
func newMCPManager(cfg *config.Config, workdir string, getenv func(string) string, policy sandbox.Policy, runner *sandbox.Runner, reg *tool.Registry, onWarning func(string)) (*mcp.Manager, error) {
	m, err := mcp.New(mcp.Options{
		Registry:  reg,
		Sandbox:   &policy,
		Runner:    runner,
		Environ:   mcpEnviron(),
		Dir:       workdir,
		CacheDir:  filepath.Join(cfg.Home, "cache", "mcp"),
		OnWarning: onWarning,
	}, MCPServers(cfg, workdir, getenv))
	if err != nil {
		return nil, configErr(err)
	}
	return m, nil
}

// MCPServers are the servers of cfg to start, in name order: enabled,
// and selected by the toolsets setting (all, mcp or mcp-<name>) when it
// names any.
func MCPServers(cfg *config.Config, workdir string, getenv func(string) string) []mcp.Server {
	var out []mcp.Server
	for _, name := range sortedNames(cfg.MCPServers) {
		s := cfg.MCPServers[name]
		if !s.IsEnabled() || !mcpSelected(cfg.Toolsets, name) {
			continue
		}
		out = append(out, mcpServer(name, s, workdir, getenv))
	}
	return out
}

func mcpSelected(toolsets []string, name string) bool {
	return len(toolsets) == 0 || slices.ContainsFunc(toolsets, func(t string) bool {
		return t == "all" || t == "mcp" || t == mcp.Toolset(name)
	})
}

// mcpServer expands one server's settings. A variable that is not set
// makes the server fail to start with an error naming it, rather than
// start with an empty token.
func mcpServer(name string, s config.MCPServer, workdir string, getenv func(string) string) mcp.Server {
	ex := expander{getenv: getenv, workdir: workdir}
	out := mcp.Server{
		Name: name, Transport: s.Transport(), Command: ex.expand(s.Command), Dir: ex.expand(s.Cwd), URL: ex.expand(s.URL),
		Timeout: config.Seconds(s.Timeout), ConnectTimeout: config.Seconds(s.ConnectTimeout), Trusted: s.Trusted,
		Include: s.Tools.Include, Exclude: s.Tools.Exclude,
		NoResources: s.Tools.Resources != nil && !*s.Tools.Resources, NoPrompts: s.Tools.Prompts != nil && !*s.Tools.Prompts,
	}
	for _, a := range s.Args {
		out.Args = append(out.Args, ex.expand(a))
	}
	for _, k := range sortedNames(s.Env) {
		out.Env = append(out.Env, k+"="+ex.expand(s.Env[k]))
	}
	if len(s.Headers) > 0 {
		out.Headers = map[string]string{}
		for k, v := range s.Headers {
			out.Headers[k] = ex.expand(v)
		}
	}
	if strings.HasPrefix(out.Dir, "~/") {
		if home := getenv("HOME"); home != "" {
			out.Dir = filepath.Join(home, out.Dir[2:])
		}
	}
	if len(ex.missing) > 0 {
		slices.Sort(ex.missing)
		out.Invalid = fmt.Sprintf("mcp_servers.%s uses %s, which is not set (in the environment or %s)",
			name, strings.Join(slices.Compact(ex.missing), ", "), filepath.Join(config.Home(getenv), ".env"))
	}
	return out
}

var variable = lazyre.New(`\$\{([^}]*)\}`)

// expander fills ${VAR}, ${env:VAR}, ${workspaceFolder}, ${userHome}
// and ${/} in a setting, noting the variables that are not set.
type expander struct {
	getenv  func(string) string
	workdir string
	missing []string
}

func (e *expander) expand(s string) string {
	if !strings.Contains(s, "${") {
		return s
	}
	return variable.Get().ReplaceAllStringFunc(s, func(m string) string {
		key := m[2 : len(m)-1]
		switch key {
		case "workspaceFolder":
			return e.workdir
		case "userHome":
			return e.getenv("HOME")
		case "/":
			return string(filepath.Separator)
		}
		key = strings.TrimPrefix(key, "env:")
		v := e.getenv(key)
		if v == "" {
			e.missing = append(e.missing, "${"+key+"}")
		}
		return v
	})
}

// mcpEnviron is what stdio servers inherit: the process environment less
// the variables that hold secrets, by name or by the shape of their value
// (a server that needs one gets it through its env setting).
func mcpEnviron() []string {
	var env []string
	for _, kv := range os.Environ() {
		name, value, _ := strings.Cut(kv, "=")
		if !redact.SecretVariable(name, value) {
			env = append(env, kv)
		}
	}
	return env
}

func sortedNames[V any](m map[string]V) []string {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

// startMCP starts the configured MCP servers, the sandboxed ones through
// runner (the default workspace's), their tools going to the agent's
// registry (rt.tools) as they become ready; the first turn waits for
// them (mcpReady).
func (rt *Runtime) startMCP(policy sandbox.Policy, runner *sandbox.Runner) error {
	m, err := newMCPManager(rt.cfg, rt.workdir, rt.getenv, policy, runner, rt.tools, rt.warn)
	if err != nil {
		return err
	}
	rt.mcp = m
	rt.closers = append(rt.closers, m.Close)
	m.Start()
	return nil
}

// mcpReady is the agent's ToolsReady: a turn waits for servers still
// starting, up to mcp_startup_timeout after they started.
func (rt *Runtime) mcpReady(ctx context.Context) {
	if rt.mcp != nil {
		rt.mcp.WaitStarted(ctx, config.Seconds(rt.cfg.MCPStartupTimeout))
	}
}

// MCPStatus lists the MCP servers and how they are: ready, starting or
// down (with the last error), their tool counts.
func (rt *Runtime) MCPStatus() []mcp.Status {
	if rt.mcp == nil {
		return nil
	}
	return rt.mcp.Status()
}

// MCPStatusLine is the servers in a few words for a status line ("" with
// none): "MCP 2/3 (github down)".
func (rt *Runtime) MCPStatusLine() string { return mcp.StatusLine(rt.MCPStatus()) }

// ReloadMCP is /reload-mcp: it reads mcp_servers from config.yaml again,
// stops the servers removed or changed (their tools go), starts the new
// and changed ones, and waits for those up to mcp_startup_timeout.
// Servers left as they were keep running. The tool list changes, so the
// provider's prompt cache starts over.
func (rt *Runtime) ReloadMCP(ctx context.Context) error {
	if rt.mcp == nil {
		return nil
	}
	cfg, err := config.Load(rt.cfg.Home, rt.getenv)
	if err != nil {
		return configErr(err)
	}
	cfg.Toolsets = rt.cfg.Toolsets // --toolsets stays as the run was started
	if err := rt.mcp.Reload(MCPServers(cfg, rt.workdir, rt.getenv)); err != nil {
		return err
	}
	rt.mcp.WaitStarted(ctx, config.Seconds(cfg.MCPStartupTimeout))
	return nil
}

// mcpToolsets are the toolsets configured MCP servers add, for checking
// the toolsets setting.
func mcpToolsets(cfg *config.Config) []string {
	out := []string{"mcp"}
	for name := range cfg.MCPServers {
		out = append(out, mcp.Toolset(name))
	}
	return out
}
