package config

import (
	"fmt"
	"path"
	"slices"

	"github.com/hermes-go/hermes/internal/lazyre"
)

// MCPServer is mcp_servers.<name>: one MCP server whose tools the agent
// is offered. A server is either a command speaking MCP over its
// standard input and output (command, args, env, cwd) or an HTTP
// endpoint (url, headers). Values may name environment variables as
// ${VAR} or ${env:VAR}.
type MCPServer struct {
	// Type is stdio, http (streamable HTTP) or sse (the older HTTP
	// transport); empty means stdio with a command and http with a url.
	Type    string            `yaml:"type"`
	Command string            `yaml:"command"`
	Args    []string          `yaml:"args"`
	Env     map[string]string `yaml:"env"`
	Cwd     string            `yaml:"cwd"`
	URL     string            `yaml:"url"`
	Headers map[string]string `yaml:"headers"`
	// Timeout bounds one tool call (seconds, default 120).
	Timeout int `yaml:"timeout"`
	// ConnectTimeout bounds one attempt to start and initialize the
	// server (seconds, default 60).
	ConnectTimeout int `yaml:"connect_timeout"`
	// Enabled nil means on.
	Enabled *bool `yaml:"enabled"`
	// Trusted runs a stdio server outside the sandbox.
	Trusted bool     `yaml:"trusted"`
	Tools   MCPTools `yaml:"tools"`
}

// MCPTools is mcp_servers.<name>.tools: which of the server's tools are
// offered.
type MCPTools struct {
	// Include and Exclude are glob patterns over the server's own tool
	// names. With Include set only matching tools are offered (include
	// wins over exclude); otherwise every tool but the excluded ones.
	Include []string `yaml:"include"`
	Exclude []string `yaml:"exclude"`
	// Resources and Prompts offer the list/read resource and list/get
	// prompt tools when the server has them (nil means on).
	Resources *bool `yaml:"resources"`
	Prompts   *bool `yaml:"prompts"`
}

// Skills holds skills.* keys.
type Skills struct {
	// ExternalDirs are more directories to find skills in, after
	// $HERMES_HOME/skills and the project's.
	ExternalDirs []string `yaml:"external_dirs"`
}

// Defaults of the MCP settings.
const (
	DefaultMCPStartupTimeout = 10  // seconds
	DefaultMCPTimeout        = 120 // seconds
	DefaultMCPConnectTimeout = 60  // seconds
)

// IsEnabled reports whether the server is to be started.
func (s MCPServer) IsEnabled() bool { return s.Enabled == nil || *s.Enabled }

// Transport is stdio, http or sse.
func (s MCPServer) Transport() string {
	switch {
	case s.Type == "streamable_http" || s.Type == "streamable-http" || s.Type == "streamableHttp":
		return "http"
	case s.Type != "":
		return s.Type
	case s.URL != "":
		return "http"
	}
	return "stdio"
}

var mcpTypes = []string{"stdio", "http", "streamable_http", "streamable-http", "streamableHttp", "sse"}

// mcpName is what a server may be called: it becomes part of tool names
// and of the config file's keys.
var mcpName = lazyre.New(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)

// ValidMCPName reports whether name can name an MCP server.
func ValidMCPName(name string) error {
	if !mcpName.Get().MatchString(name) || len(name) > 64 {
		return fmt.Errorf("MCP server name %q: use letters, digits, '_', '-' and '.', starting with a letter or digit (at most 64)", name)
	}
	return nil
}

// validateMCP checks mcp_servers and mcp_startup_timeout; bad reports a
// problem with a key.
func (c *Config) validateMCP(bad func(key, value, allowed string)) {
	if c.MCPStartupTimeout < 0 {
		bad("mcp_startup_timeout", fmt.Sprint(c.MCPStartupTimeout), "a number of seconds, at least 0 (0: the default, 10)")
	}
	for _, name := range sortedKeys(c.MCPServers) {
		s := c.MCPServers[name]
		key := "mcp_servers." + name
		if err := ValidMCPName(name); err != nil {
			bad(key, fmt.Sprintf("%q", name), "a name of letters, digits, '_', '-' and '.'")
		}
		if s.Type != "" && !slices.Contains(mcpTypes, s.Type) {
			bad(key+".type", fmt.Sprintf("%q", s.Type), "stdio, http or sse")
		}
		switch tr := s.Transport(); {
		case s.Command == "" && s.URL == "":
			bad(key, "a server with neither command nor url", "command (with args, env, cwd) for a local server, or url (with headers) for a remote one")
		case s.Command != "" && s.URL != "":
			bad(key, "a server with both command and url", "one of command or url")
		case tr == "stdio" && s.Command == "":
			bad(key+".type", "stdio without a command", "a command for type stdio")
		case tr != "stdio" && s.URL == "":
			bad(key+".type", tr+" without a url", "a url for type "+tr)
		case tr != "stdio" && (len(s.Args) > 0 || len(s.Env) > 0 || s.Cwd != ""):
			bad(key, "args, env or cwd on an HTTP server", "args, env and cwd only with command")
		case tr == "stdio" && len(s.Headers) > 0:
			bad(key+".headers", "headers on a stdio server", "headers only with url")
		}
		if s.Timeout < 0 {
			bad(key+".timeout", fmt.Sprint(s.Timeout), "a number of seconds, at least 0 (0: the default, 120)")
		}
		if s.ConnectTimeout < 0 {
			bad(key+".connect_timeout", fmt.Sprint(s.ConnectTimeout), "a number of seconds, at least 0 (0: the default, 60)")
		}
		for i, p := range append(slices.Clone(s.Tools.Include), s.Tools.Exclude...) {
			if _, err := path.Match(p, ""); err != nil {
				list, j := "include", i
				if i >= len(s.Tools.Include) {
					list, j = "exclude", i-len(s.Tools.Include)
				}
				bad(fmt.Sprintf("%s.tools.%s[%d]", key, list, j), fmt.Sprintf("%q", p), "a glob pattern such as get_* ("+err.Error()+")")
			}
		}
	}
}
