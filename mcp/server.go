package mcp

import (
	"path"
	"slices"
	"time"
)

// Transports a Server may use.
const (
	Stdio = "stdio"
	HTTP  = "http" // streamable HTTP
	SSE   = "sse"
)

// Defaults of a Server.
const (
	DefaultTimeout        = 120 * time.Second
	DefaultConnectTimeout = 60 * time.Second
	// MaxResultChars caps a tool result; the executor spills the rest.
	MaxResultChars = 50_000
)

// Server is one configured MCP server, values expanded.
type Server struct {
	Name      string
	Transport string // Stdio, HTTP or SSE; empty: Stdio with a Command, HTTP with a URL

	Command string
	Args    []string
	// Env is added to Options.Environ ("KEY=value").
	Env []string
	// Dir is the working directory (default Options.Dir).
	Dir string

	URL     string
	Headers map[string]string

	// Timeout bounds one call (default DefaultTimeout); ConnectTimeout one
	// attempt to start and initialize (default DefaultConnectTimeout).
	Timeout        time.Duration
	ConnectTimeout time.Duration
	// Trusted runs a stdio server outside the sandbox.
	Trusted bool

	// Include and Exclude are glob patterns over the server's tool names
	// (include wins).
	Include, Exclude []string
	// NoResources and NoPrompts leave out the resource and prompt tools.
	NoResources, NoPrompts bool

	// Invalid, when set, is why the server cannot be started (a setting
	// names a variable that is not set): it is reported as its failure.
	Invalid string
}

func (s Server) transport() string {
	switch {
	case s.Transport != "":
		return s.Transport
	case s.URL != "":
		return HTTP
	}
	return Stdio
}

func (s Server) timeout() time.Duration {
	if s.Timeout > 0 {
		return s.Timeout
	}
	return DefaultTimeout
}

func (s Server) connectTimeout() time.Duration {
	if s.ConnectTimeout > 0 {
		return s.ConnectTimeout
	}
	return DefaultConnectTimeout
}

// offers reports whether the server's tool called name is offered.
func (s Server) offers(name string) bool {
	if len(s.Include) > 0 {
		return matchAny(s.Include, name)
	}
	return !matchAny(s.Exclude, name)
}

func matchAny(patterns []string, name string) bool {
	return slices.ContainsFunc(patterns, func(p string) bool {
		ok, _ := path.Match(p, name)
		return ok
	})
}

// same reports whether a and b describe the same server, so a reload
// keeps it running.
func (s Server) same(o Server) bool {
	return s.Name == o.Name && s.transport() == o.transport() && s.Command == o.Command &&
		slices.Equal(s.Args, o.Args) && slices.Equal(s.Env, o.Env) && s.Dir == o.Dir &&
		s.URL == o.URL && mapsEqual(s.Headers, o.Headers) && s.Timeout == o.Timeout &&
		s.ConnectTimeout == o.ConnectTimeout && s.Trusted == o.Trusted &&
		slices.Equal(s.Include, o.Include) && slices.Equal(s.Exclude, o.Exclude) &&
		s.NoResources == o.NoResources && s.NoPrompts == o.NoPrompts && s.Invalid == o.Invalid
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}
